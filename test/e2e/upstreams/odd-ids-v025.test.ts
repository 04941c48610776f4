/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 0.2.5 agent that names its tasks and contexts
 * itself with ids outside the gateway's rule ("turn #1 ü", "session/1 ü"). The client gets them as protocol ids
 * (`b64:` + base64url) and uses them as SDK clients do: it answers the agent's question with the task's
 * taskId and contextId, gets the task, lists its context; the agent receives its own ids back
 * (docs/version-mapping.md, Agents' ids).
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { StreamReader, asTask, listRequest, payloadRef, rejectionOf, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';
import { LONG_CONTEXT_ID, LONG_PREFIX, ODD_IDS_QUESTION, startOddIdsV025Agent, type OddIdsV025Agent } from './odd-ids-v025-agent.js';

const encoded = (id: string): string => `b64:${Buffer.from(id).toString('base64url')}`;

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'a2a-js 1.x client over %s → gateway → a 0.2.5 agent naming its own ids',
  (transport: TransportName) => {
    let agent: OddIdsV025Agent;
    let gateway: RunningGateway;
    let client: Client;

    beforeAll(async () => {
      agent = await startOddIdsV025Agent();
      gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
      client = await connectClient(gateway.url, transport);
    });
    afterAll(async () => {
      await gateway?.close();
      await agent?.close();
    });

    it("answers the agent's question with the task's taskId and contextId, gets the task and lists its context by the ids it was given", async () => {
      const streamed = await new StreamReader(client.sendMessageStream(sendRequest('deploy'))).rest();
      const asked = streamed.at(-1);
      if (asked?.$case !== 'statusUpdate') throw new Error(`expected the question as a status update, got ${JSON.stringify(asked)}`);
      const { taskId, contextId, status } = asked.value;
      expect([status?.state, textOf(status?.message)]).toEqual([TaskState.TASK_STATE_INPUT_REQUIRED, ODD_IDS_QUESTION]);
      expect([taskId, contextId]).toEqual([encoded('turn #1 ü'), encoded('session/1 ü')]);
      expect(streamed.map(payloadRef)).toEqual(streamed.map(() => ({ taskId, contextId })));
      expect([status?.message?.taskId, status?.message?.contextId]).toEqual([taskId, contextId]);

      const answered = asTask(await client.sendMessage(sendRequest('north', { taskId, contextId })));
      expect([answered.id, answered.contextId, answered.status?.state, textOf(answered.status?.message)]).toEqual([
        taskId,
        contextId,
        TaskState.TASK_STATE_COMPLETED,
        'Done: north (task turn #1 ü, context session/1 ü)',
      ]);

      const got = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
      expect([got.id, got.contextId, got.status?.state]).toEqual([taskId, contextId, TaskState.TASK_STATE_COMPLETED]);
      const listed = (await client.listTasks(listRequest({ contextId }))).tasks;
      expect(listed.map((task: Task) => [task.id, task.status?.state])).toEqual([[taskId, TaskState.TASK_STATE_COMPLETED]]);
    });

    it("a context id too long to carry encoded: the call fails naming the agent's id, instead of handing out one every later call refuses", async () => {
      const refusal = await rejectionOf(client.sendMessage(sendRequest(`${LONG_PREFIX} deploy`)));
      expect(refusal.message).toContain(`The upstream agent's context id "${LONG_CONTEXT_ID.slice(0, 60)}…" cannot be passed to A2A 1.0 callers`);
    });
  },
);
