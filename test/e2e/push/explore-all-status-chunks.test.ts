/**
 * `push-events: all`: an agent that says its progress as a message streamed in chunks (status updates of one state
 * and one message id, stamped once: the message's time) must have every chunk pushed, as the stream relayed them.
 * Each chunk got the same A2A-Event-Id (task, state, timestamp and message id), so every chunk after the first was
 * taken for a repeat of it and never sent: the webhook read "Let me look " and not the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { agentMessage, startSdkTestAgent, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import { collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { Receiver } from './harness.js';

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

let gateway: TestGateway;
let receiver: Receiver;
let dir: string;
const closing: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-push-chunks-'));
  receiver = await new Receiver().up();
  const agent = await startSdkTestAgent(
    { name: 'chunked-progress', description: 'progress said in status chunks', skill: { id: 'p', name: 'P', description: 'p' } },
    chunkedProgress,
  );
  closing.push(agent);
  gateway = await startTestGateway({
    upstream: { url: agent.url },
    'push-notifications': true,
    'push-allow-private': true,
    'push-events': 'all',
    'persistence-dir': dir,
  });
  closing.unshift(gateway);
});
afterAll(async () => {
  for (const each of closing) await each.close();
  await receiver?.down();
  rmSync(dir, { recursive: true, force: true });
});

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
