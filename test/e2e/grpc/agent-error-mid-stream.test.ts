/**
 * A REAL a2a-js 1.x agent served over gRPC alone whose task store fails mid-turn, after it said something
 * (test/support/sdk-v1-failing-agent.ts): its SDK ends the stream with its own status (UNKNOWN, the store's message: a
 * local path and a token) in place of the turn's end, and keeps the task WORKING for good while it takes the
 * context's next message. Through the gateway, GetTask said WORKING for ever and every later message of the
 * conversation was refused as a turn in progress: the gRPC client told no status as the agent's own, so the gateway
 * took the agent's (-32603 once mapped) for its own failure, after which the agent may run the turn on. The gRPC
 * client now tells a status the agent's server sent as its own (`reported`), as the JSON-RPC and HTTP+JSON clients
 * tell the agent's error: the turn is recorded FAILED with its reason, scrubbed, and a Bailian user reads that the
 * agent failed, then why.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import {
  FAILING_AGENT_DONE,
  FAILING_AGENT_SAYS,
  STORE_FAILURE_SCRUBBED,
  startFailingAgent,
  type RunningFailingAgent,
} from '../../support/sdk-v1-failing-agent.js';
import { asTask, sendRequest, streamedArtifactText, textOf, wireError, type Payload } from '../../support/sdk-v1-client.js';
import { connectClient, outline } from '../upstreams/sdk1-client.js';

let agent: RunningFailingAgent;
beforeAll(async () => {
  agent = await startFailingAgent({ grpcOnly: true });
});
afterAll(async () => {
  await agent?.close();
});

describe('the official a2a-js 1.x client → gateway → the gRPC agent whose store fails mid-turn', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it("reads the agent's words, then its error scrubbed; GetTask reads FAILED with it; the conversation's next message is answered", async () => {
    const client = await connectClient(gateway.url, 'JSONRPC');
    const seen: Payload[] = [];
    let failure: string | undefined;
    try {
      for await (const event of client.sendMessageStream(sendRequest('store-fails: plan a VPC'))) if (event.payload) seen.push(event.payload);
    } catch (error) {
      failure = wireError(error).message;
    }
    expect(seen.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate']);
    expect(seen[1]?.$case === 'statusUpdate' && textOf(seen[1].value.status?.message)).toBe(FAILING_AGENT_SAYS.en.working);
    expect(streamedArtifactText(seen)).toBe(FAILING_AGENT_SAYS.en.plan);
    expect(failure).toBe(`SSE event contained an error: ${STORE_FAILURE_SCRUBBED} (Code: -32603) Data: {}`);

    const opening = seen[0];
    if (opening?.$case !== 'task') throw new Error(`expected a Task first, got ${opening?.$case}`);
    const task = await client.getTask({ tenant: '', id: opening.value.id, historyLength: undefined });
    expect([task.status?.state, textOf(task.status?.message)]).toEqual([TaskState.TASK_STATE_FAILED, STORE_FAILURE_SCRUBBED]);
    const next = asTask(await client.sendMessage(sendRequest('plan another', { contextId: opening.value.contextId })));
    expect([next.status?.state, textOf(next.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, FAILING_AGENT_DONE]);
  });
});

describe('a Bailian user → the facade → the gRPC agent whose store fails mid-turn', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  /** What the user reads of a turn sent `way`, and the id of its task. */
  async function turn(way: 'send' | 'stream', message: Record<string, unknown>): Promise<{ reads: string; taskId: string }> {
    if (way === 'send') {
      const { body } = await rpc(gateway.url, 'message/send', { message });
      return { reads: body.error ? `error: ${body.error.message}` : sentText(body.result), taskId: body.result?.id };
    }
    const frames = await (await openStream(`${gateway.url}/stream`, 'message/stream', { message })).rest();
    const refused = frames.find((frame) => frame.json.error);
    const events = results(frames);
    return { reads: refused ? `error: ${refused.json.error.message}` : streamedText(events), taskId: events[0]?.id };
  }

  it.for(['stream', 'send'] as const)(
    "message/%s: the agent's words, then that it failed and why, in their language; tasks/get the same; the next message answered",
    async (way, { expect }) => {
      const contextId = randomUUID();
      const { working, plan } = FAILING_AGENT_SAYS.zh;
      const failed = await turn(way, userMessage({ text: 'store-fails: 部署一个专有网络', contextId }));
      const reads = `${working}\n${plan}\n智能体出错，未能完成本次请求：${STORE_FAILURE_SCRUBBED}`;
      expect(failed.reads).toBe(reads);
      const got = await rpc(gateway.url, 'tasks/get', { id: failed.taskId });
      expect([got.body.result?.status.state, sentText(got.body.result)]).toEqual(['failed', reads]);
      expect((await turn(way, userMessage({ text: 'plan another', contextId }))).reads).toBe(FAILING_AGENT_DONE);
    },
  );
});
