/**
 * A turn sent without waiting for its end (a 1.0 `returnImmediately` send, a 0.2.5 `blocking: false` one, each with
 * its webhook) is followed by the gateway: its end passes through a subscription of the follow's, not the send's
 * stream. An agent that says its reply in artifact chunks and leaves its end unstamped (A2A leaves the timestamp
 * optional; a real a2a-js 1.x agent here) gave the follow no way to tell whether the task read then was that turn's,
 * so a 1.0 receiver (`push-events: terminal`) was pushed the bare status update, without the words, and had to call
 * GetTask for them. The follow now knows the send's message, which tells the turn as on the send's own stream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { AgentEvent, InMemoryTaskStore, type AgentExecutor, type ServerCallContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkTestAgent, textPart, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import { startCuttingProxy, type CuttingProxy } from '../../support/cutting-proxy.js';
import { asTask, collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { Receiver } from './harness.js';

const CHUNKS = ['Quota report: ', '3 of 10 VPCs ', 'used.'];
const WORDS = CHUNKS.join('');

/** In front of the agent: tells the follow's SubscribeToTask by its method. */
let proxy: CuttingProxy;

/**
 * The agent's tasks; its first load after a subscription came in is that subscription's, which listens to the
 * task's events before it loads it (a2a-js): from then on whatever the agent says reaches the follow live.
 */
class SubscriptionsHeard extends InMemoryTaskStore {
  private heard: () => void = () => undefined;
  private subscriptionsBefore = 0;
  listening = new Promise<void>((resolve) => (this.heard = resolve));
  override async load(taskId: string, context: ServerCallContext) {
    if (proxy.of('SubscribeToTask').length > this.subscriptionsBefore) this.heard();
    return super.load(taskId, context);
  }
  /** The next turn waits for a subscription of its own. */
  rearm(): void {
    this.listening = new Promise<void>((resolve) => (this.heard = resolve));
    this.subscriptionsBefore = proxy.of('SubscribeToTask').length;
  }
}

const store = new SubscriptionsHeard();

/** The reply in artifact chunks, said once the follow listens, then an end with no timestamp and no message. */
const unstampedEnd: AgentExecutor = {
  async execute(request, bus) {
    const { opening, status, artifact } = turnEvents(request);
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    await store.listening;
    CHUNKS.forEach((chunk, i) => bus.publish(artifact('report', [textPart(chunk)], i > 0, i === CHUNKS.length - 1)));
    const { taskId, contextId } = request;
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
        metadata: undefined,
      }),
    );
  },
  cancelTask: async () => undefined,
};

const closing: Array<{ close(): Promise<void> }> = [];
let dir: string;
let receiver: Receiver;
let gateway: TestGateway;
/** Follows nothing: a turn's end reaches push only on a caller's own stream. */
let unfollowing: TestGateway;

beforeAll(async () => {
  receiver = await new Receiver().up();
  proxy = await startCuttingProxy();
  closing.push(proxy);
  const agent = await startSdkTestAgent(
    { name: 'unstamped-end', description: 'an artifact in chunks, then an unstamped end', skill: { id: 'r', name: 'R', description: 'r' } },
    unstampedEnd,
    { taskStore: store, behind: proxy },
  );
  closing.push(agent);
  dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-push-unstamped-follow-'));
  const base = { upstream: { url: proxy.url }, bailian: { profile: 'a2a-0.2.5' }, 'push-notifications': true, 'push-allow-private': true };
  gateway = await startTestGateway({ ...base, 'persistence-dir': join(dir, 'following') });
  closing.unshift(gateway);
  unfollowing = await startTestGateway({ ...base, 'persistence-dir': join(dir, 'unfollowing'), 'push-follow-timeout-ms': 0 });
  closing.unshift(unfollowing);
});
afterAll(async () => {
  for (const each of closing) await each.close();
  await receiver?.down();
  rmSync(dir, { recursive: true, force: true });
});

const artifactText = (artifacts: Array<{ parts: Array<{ text?: string }> }> | undefined): string =>
  (artifacts ?? []).flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('');

it("a 1.0 returnImmediately send with its webhook: the turn's end pushed as the Task, its words in it", async () => {
  store.rearm();
  const path = `/v1-${randomUUID()}`;
  const { client } = await connect(gateway.url, 'JSONRPC');
  const request: SendMessageRequest = {
    ...sendRequest('how many VPCs'),
    configuration: {
      acceptedOutputModes: [],
      historyLength: undefined,
      returnImmediately: true,
      taskPushNotificationConfig: { tenant: '', id: 'hook', taskId: '', url: `${receiver.url}${path}`, token: 'tok', authentication: undefined },
    },
  };
  const running = asTask(await client.sendMessage(request));
  expect(running.status?.state).not.toBe(TaskState.TASK_STATE_COMPLETED);

  const [delivery] = await receiver.waitFor(path, 1);
  const body = delivery!.json as { task?: { id: string; status: { state: string }; artifacts?: [] }; statusUpdate?: unknown };
  expect(Object.keys(body)).toEqual(['task']);
  expect(body.task).toMatchObject({ id: running.id, status: { state: 'TASK_STATE_COMPLETED' } });
  expect(artifactText(body.task?.artifacts)).toBe(WORDS);
});

it('a 0.2.5 blocking: false send with its webhook: the finished Task, its reply in the artifacts', async () => {
  store.rearm();
  const path = `/v025-${randomUUID()}`;
  const client = new A2AClient(gateway.url);
  const sent = (await client.sendMessage({
    message: { kind: 'message', messageId: `m-${randomUUID()}`, role: 'user', parts: [{ kind: 'text', text: 'how many VPCs' }] },
    configuration: { acceptedOutputModes: ['text/plain'], blocking: false, pushNotificationConfig: { url: `${receiver.url}${path}`, token: 'tok' } },
  })) as { error?: unknown; result: { id: string } };
  expect(sent.error).toBeUndefined();

  const [delivery] = await receiver.waitFor(path, 1);
  const body = delivery!.json as { kind: string; id: string; status: { state: string }; artifacts?: [] };
  expect(body).toMatchObject({ kind: 'task', id: sent.result.id, status: { state: 'completed' } });
  expect(artifactText(body.artifacts)).toBe(WORDS);
  const got = (await client.getTask({ id: sent.result.id })) as { result: { artifacts?: [] } };
  expect(artifactText(body.artifacts)).toBe(artifactText(got.result.artifacts));
});

it("a 1.0 caller's own subscription to the running turn, its webhook set after the send: the Task, its words in it", async () => {
  store.rearm();
  const path = `/subscribed-${randomUUID()}`;
  const { client } = await connect(unfollowing.url, 'JSONRPC');
  const request: SendMessageRequest = {
    ...sendRequest('how many VPCs'),
    configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined },
  };
  const running = asTask(await client.sendMessage(request));
  await client.createTaskPushNotificationConfig({
    tenant: '',
    id: 'hook',
    taskId: running.id,
    url: `${receiver.url}${path}`,
    token: 'tok',
    authentication: undefined,
  });
  await collect(client.resubscribeTask({ tenant: '', id: running.id }));

  const [delivery] = await receiver.waitFor(path, 1);
  const body = delivery!.json as { task?: { id: string; status: { state: string }; artifacts?: [] }; statusUpdate?: unknown };
  expect(Object.keys(body)).toEqual(['task']);
  expect(body.task).toMatchObject({ id: running.id, status: { state: 'TASK_STATE_COMPLETED' } });
  expect(artifactText(body.task?.artifacts)).toBe(WORDS);
});
