/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 0.2.5 agent that publishes messages and
 * artifacts with `parts: []`, as the 0.2.5 schema allows: the turn goes on and the answer arrives, and no
 * object without parts reaches the 1.0 caller (docs/version-mapping.md, Messages and artifacts without parts).
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { StreamReader, asTask, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { EMPTY_MESSAGE_PREFIX, HOLD_PREFIX, emptyPartsAnswer, startEmptyPartsV025Agent, type EmptyPartsV025Agent } from './empty-parts-v025-agent.js';
import { connectClient, outline } from './sdk1-client.js';

/** Every message and artifact of a task has parts. */
function expectPartsEverywhere(task: Task): void {
  expect(task.history.every((message) => message.parts.length > 0)).toBe(true);
  expect(task.artifacts.every((artifact) => artifact.parts.length > 0)).toBe(true);
  if (task.status?.message) expect(task.status.message.parts.length).toBeGreaterThan(0);
}

const artifactTexts = (task: Task): string[] => task.artifacts.map((artifact) => textOf({ parts: artifact.parts } as never));

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'a2a-js 1.x client over %s → gateway → a2a-js 0.2.5 agent sending empty parts',
  (transport: TransportName) => {
    let agent: EmptyPartsV025Agent;
    let gateway: RunningGateway;
    let client: Client;

    beforeAll(async () => {
      agent = await startEmptyPartsV025Agent();
      gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
      client = await connectClient(gateway.url, transport);
    });
    afterAll(async () => {
      await gateway?.close();
      await agent?.close();
    });

    it('SendStreamingMessage: the working status stays without its empty message, the empty artifact is left out, the answer follows', async () => {
      const payloads = await new StreamReader(client.sendMessageStream(sendRequest('streamed'))).rest();
      expect(payloads.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
      const [, working, artifact, completed] = payloads;
      expect(working?.$case === 'statusUpdate' && working.value.status?.message).toBeFalsy();
      expect(artifact?.$case === 'artifactUpdate' && textOf({ parts: artifact.value.artifact?.parts ?? [] } as never)).toBe(
        emptyPartsAnswer('streamed'),
      );
      expect(completed?.$case === 'statusUpdate' && textOf(completed.value.status?.message)).toBe(emptyPartsAnswer('streamed'));
    });

    it('SendMessage and GetTask: the task the agent stored, its empty history message and artifact left out', async () => {
      const task = asTask(await client.sendMessage(sendRequest('blocking')));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(task.status?.message)).toBe(emptyPartsAnswer('blocking'));
      expect(artifactTexts(task)).toEqual([emptyPartsAnswer('blocking')]);
      expectPartsEverywhere(task);
      const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
      expect(artifactTexts(got)).toEqual([emptyPartsAnswer('blocking')]);
      expect(got.history.map(textOf)).toEqual(['blocking', emptyPartsAnswer('blocking')]);
      expectPartsEverywhere(got);
    });

    it('SendMessage: a direct Message without parts is an answer with one empty text part', async () => {
      const result = await client.sendMessage(sendRequest(`${EMPTY_MESSAGE_PREFIX} nothing`));
      expect('status' in result).toBe(false);
      if ('status' in result) return;
      expect(result.parts.length).toBe(1);
      expect(textOf(result)).toBe('');
    });

    it('SubscribeToTask and CancelTask of a running task whose store holds the empty objects', async () => {
      const stream = new StreamReader(client.sendMessageStream(sendRequest(`${HOLD_PREFIX} wait`)));
      try {
        const first = await stream.expectNext();
        const taskId = first.$case === 'task' ? first.value.id : '';
        expect(outline(await stream.expectNext())).toBe('statusUpdate:TASK_STATE_WORKING');
        const subscription = new StreamReader(client.resubscribeTask({ tenant: '', id: taskId }));
        try {
          const snapshot = await subscription.expectNext();
          expect(snapshot.$case).toBe('task');
          if (snapshot.$case === 'task') expectPartsEverywhere(snapshot.value);
          const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
          expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
          expectPartsEverywhere(canceled);
          expect((await subscription.rest()).map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_CANCELED');
          expect((await stream.rest()).map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_CANCELED');
        } finally {
          await subscription.close();
        }
      } finally {
        await stream.close();
      }
    });
  },
);
