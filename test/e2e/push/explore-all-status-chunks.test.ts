/**
 * `push-events: all`: an agent that says its progress as a message streamed in chunks (status updates of one state
 * and one message id, stamped once: the message's time) must have every chunk pushed, as the stream relayed them.
 * Each chunk got the same A2A-Event-Id (task, state, timestamp and message id), so every chunk after the first was
 * taken for a repeat of it and never sent: the webhook read "Let me look " and not the rest.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { agentMessage, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import { collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import type { Receiver } from './harness.js';
import { startSdkPushBench, type SdkPushBench } from './sdk-push-bench.js';

const PROGRESS = ['Let me look ', 'at the VPC ', 'quotas.'];
const QUESTION = 'Which region?';

/** A real a2a-js 1.x agent streaming its progress message in chunks, all stamped with the message's time. */
const chunkedProgress: AgentExecutor = {
  async execute(request, bus) {
    const { taskId, contextId } = request;
    const { opening, status } = turnEvents(request);
    bus.publish(opening());
    const messageId = randomUUID();
    const timestamp = new Date().toISOString();
    for (const chunk of PROGRESS) {
      const message = agentMessage(chunk, taskId, contextId, messageId);
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_WORKING, message, timestamp }, metadata: undefined }),
      );
    }
    bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
  },
  cancelTask: async () => undefined,
};

let bench: SdkPushBench;
let gateway: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  bench = await startSdkPushBench(
    { name: 'chunked-progress', description: 'progress said in status chunks', skill: { id: 'p', name: 'P', description: 'p' } },
    chunkedProgress,
    { 'push-events': 'all' },
  );
  ({ gateway, receiver } = bench);
});
afterAll(() => bench?.close());

type Body = { statusUpdate?: { status: { state: string; message?: { parts: Array<{ text?: string }> } } } };
const words = (body: Body): string => (body.statusUpdate?.status.message?.parts ?? []).map((part) => part.text ?? '').join('');

it('pushes every chunk of a streamed progress message, once each and in order, as the stream relayed them', async () => {
  const { client } = await connect(gateway.url, 'JSONRPC');
  const path = `/chunks-${randomUUID()}`;
  const streamed = await collect(
    client.sendMessageStream({
      ...sendRequest('check the quotas'),
      configuration: {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: false,
        taskPushNotificationConfig: {
          tenant: '',
          id: 'progress',
          taskId: '',
          url: `${receiver.url}${path}`,
          token: 'tok',
          authentication: undefined,
        },
      },
    }),
  );
  // What the caller's stream showed: the task, each chunk, the question.
  expect(streamed).toHaveLength(PROGRESS.length + 2);
  await waitUntil(
    async () => receiver.at(path).some((entry) => (entry.json as Body).statusUpdate?.status.state === 'TASK_STATE_INPUT_REQUIRED'),
    8_000,
  );
  const bodies = receiver.at(path).map((entry) => entry.json as Body);
  const working = bodies.filter((body) => body.statusUpdate?.status.state === 'TASK_STATE_WORKING');
  expect(working.map(words)).toEqual(PROGRESS);
  expect(bodies).toHaveLength(PROGRESS.length + 2);
  expect(words(bodies.at(-1)!)).toBe(QUESTION);
  expect(new Set(receiver.at(path).map((entry) => entry.headers['a2a-event-id'])).size).toBe(bodies.length);
});
