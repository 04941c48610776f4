/**
 * What a webhook registered through the 0.2.5 facade is pushed, in front of real a2a-js 1.x agents
 * (test/support/sdk-v1-scripted-agents.ts) and read through the official a2a-js 0.2.5 client: the Task
 * `tasks/get` answers for the same task (docs/facade-reply.md: the caller "reads the reply later with
 * `tasks/get`, or is pushed the finished Task"), so a Bailian receiver, which reads the artifacts alone,
 * reads the turn's reply there, every part as text, and no body carries the gateway's own metadata.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient } from 'a2a-sdk-025/client';
import { InMemoryTaskStore, type ServerCallContext } from 'a2a-sdk-1/server';
import { TaskState, type Task } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, sdkParams, sentText } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import {
  BOOK_QUESTION,
  bookedReply,
  FILES_BINARY,
  FILES_DONE,
  FILES_NOTE,
  FILES_URL,
  startScriptedAgent,
  type RunningScriptedAgent,
} from '../../support/sdk-v1-scripted-agents.js';
import { Receiver } from './harness.js';
import { waitUntil } from '../../support/wait-until.js';

/** The agent's copy of a finished task can be made unreadable: its GetTask then fails, as a broken store's would. */
class FailingTaskStore {
  private readonly kept = new InMemoryTaskStore();
  failFinished = false;
  save = (task: Task, context: ServerCallContext): Promise<void> => this.kept.save(task, context);
  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    this.loads += 1;
    const task = await this.kept.load(taskId, context);
    if (this.failFinished && task?.status?.state === TaskState.TASK_STATE_COMPLETED) throw new Error('the task store is out of reach');
    return task;
  }
  list: InMemoryTaskStore['list'] = (params, context) => this.kept.list(params, context);
  /** Reads of a task, GetTask's among them. */
  loads = 0;
}

interface Setup {
  gateway: TestGateway;
  client: A2AClient;
  receiver: Receiver;
  store: FailingTaskStore;
}

function facadeWithPush(profile: 'bailian' | 'a2a-0.2.5', overrides: Record<string, unknown> = {}): Setup {
  const setup = { store: new FailingTaskStore() } as Setup;
  let agent: RunningScriptedAgent | undefined;
  let dir = '';
  beforeAll(async () => {
    agent = await startScriptedAgent({ taskStore: setup.store });
    setup.receiver = await new Receiver().up();
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-push-facade-'));
    setup.gateway = await startTestGateway({
      upstream: { url: agent.url },
      bailian: { profile },
      'push-notifications': true,
      'push-allow-private': true,
      'persistence-dir': dir,
      'keepalive-ms': 0,
      ...overrides,
    });
    setup.client = new A2AClient(setup.gateway.url);
  });
  afterAll(async () => {
    await setup.gateway?.close();
    await agent?.close();
    await setup.receiver?.down();
    await rm(dir, { recursive: true, force: true });
  });
  return setup;
}

/** Every part a receiver reads in the Task's artifacts. */
const artifactParts = (task: any): any[] => (task.artifacts ?? []).flatMap((artifact: any) => artifact.parts);

/** A send of `script` with an inline push config to `path`; resolves with its answer and the one Task pushed. */
async function pushedTurn(setup: Setup, script: string, path: string, blocking: boolean): Promise<{ pushed: any; sent: any }> {
  const params = sdkParams(script);
  const sent: any = await setup.client.sendMessage({
    ...params,
    configuration: { acceptedOutputModes: ['text/plain'], blocking, pushNotificationConfig: { url: `${setup.receiver.url}${path}`, token: 'tok' } },
  });
  expect(sent.error).toBeUndefined();
  const [delivery] = await setup.receiver.waitFor(path, 1);
  return { pushed: delivery!.json, sent: sent.result };
}

describe('bailian profile: a 0.2.5 webhook is pushed what tasks/get answers', () => {
  const setup = facadeWithPush('bailian');

  it('a blocking: false send: the finished turn, its reply in the artifacts as text, no byte of the binary file', async () => {
    const { pushed, sent } = await pushedTurn(setup, 'files', '/files', false);
    const taskId = sent.id;
    const got: any = await setup.client.getTask({ id: taskId });
    expect(pushed).toEqual(got.result);
    expect(pushed).toMatchObject({ kind: 'task', id: taskId, status: { state: 'completed' } });
    const read = sentText(pushed);
    for (const words of [FILES_NOTE, FILES_URL, FILES_DONE, '"region": "cn-hangzhou"', 'diagram.png (image/png, 8 bytes)'])
      expect(read).toContain(words);
    for (const part of artifactParts(pushed)) expect(part.kind).toBe('text');
    const body = JSON.stringify(pushed);
    expect(body).not.toContain(FILES_BINARY.toString('base64'));
    expect(body).not.toContain('a2a_bridge');
  });

  it('a task the caller named by its own id: pushed under that id, the booked reply in its artifacts', async () => {
    const mine = `mine-${randomUUID()}`;
    const first: any = await setup.client.sendMessage(sdkParams('book', { taskId: mine }));
    // The scripted agent is not iac-code: its question ends input-required (docs/bailian.md).
    expect(first.result).toMatchObject({ id: mine, status: { state: 'input-required' } });
    expect(sentText(first.result)).toBe(BOOK_QUESTION);
    const set: any = await setup.client.setTaskPushNotificationConfig({
      taskId: mine,
      pushNotificationConfig: { url: `${setup.receiver.url}/mine`, token: 'tok' },
    });
    expect(set.error).toBeUndefined();
    await collect(setup.client.sendMessageStream(sdkParams('2026-01-02', { contextId: first.result.contextId, taskId: mine })));
    const [delivery] = await setup.receiver.waitFor('/mine', 1);
    const pushed: any = delivery!.json;
    const got: any = await setup.client.getTask({ id: mine });
    expect(pushed).toEqual(got.result);
    expect(pushed.id).toBe(mine);
    expect(delivery!.headers['a2a-event-id']).toMatch(new RegExp(`^${mine}:`));
    expect(sentText(pushed)).toContain(bookedReply('2026-01-02').at(-1)!.trim());
    expect(JSON.stringify(pushed)).not.toContain('a2a_bridge');
  });

  it("an agent that cannot read the task back: the reply is made of the gateway's record, still in the artifacts", async () => {
    setup.store.failFinished = true;
    try {
      // A blocking send: a follow of a task the agent cannot read could not tell its end either.
      const { pushed, sent } = await pushedTurn(setup, 'files', '/forgotten', true);
      const taskId = sent.id;
      expect(pushed).toMatchObject({ kind: 'task', id: taskId, status: { state: 'completed' } });
      expect(sentText(pushed)).toBe(sentText(sent));
      for (const words of [FILES_NOTE, FILES_URL, FILES_DONE]) expect(sentText(pushed)).toContain(words);
      for (const part of artifactParts(pushed)) expect(part.kind).toBe('text');
      expect(JSON.stringify(pushed)).not.toContain('a2a_bridge');
      expect(setup.gateway.log().some((entry) => entry.taskId === taskId && /agent's task could not be read/.test(String(entry.msg)))).toBe(true);
    } finally {
      setup.store.failFinished = false;
    }
  });
});

describe('a2a-0.2.5 profile: a 0.2.5 webhook is pushed what tasks/get answers', () => {
  const setup = facadeWithPush('a2a-0.2.5');

  it('the question asked once in the history, and no part carrying the gateway metadata', async () => {
    const first: any = await setup.client.sendMessage(sdkParams('book'));
    const task = first.result;
    await setup.client.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: `${setup.receiver.url}/plain` } });
    await collect(setup.client.sendMessageStream(sdkParams('2026-01-02', { contextId: task.contextId, taskId: task.id })));
    const [delivery] = await setup.receiver.waitFor('/plain', 1);
    const pushed: any = delivery!.json;
    const got: any = await setup.client.getTask({ id: task.id });
    expect(pushed).toEqual(got.result);
    expect(pushed.history.filter((message: any) => message.parts.some((part: any) => part.text === BOOK_QUESTION))).toHaveLength(1);
    expect(JSON.stringify(pushed)).not.toContain('a2a_bridge');
  });
});

describe('bailian profile, push-events: all: every change pushed as tasks/get shows the task then', () => {
  const setup = facadeWithPush('bailian', { 'push-events': 'all' });

  it('every body the reply so far, the agent read once, for the turn end, and the last body what tasks/get answers', async () => {
    // The agent's own reads of a turn and its tasks/get, without a webhook: a2a-js reads its store for every event.
    let loadsBefore = setup.store.loads;
    const plain = await collect(setup.client.sendMessageStream(sdkParams('ask')));
    await setup.client.getTask({ id: plain.at(-1).taskId });
    const unpushedLoads = setup.store.loads - loadsBefore;
    loadsBefore = setup.store.loads;
    const params = sdkParams('ask');
    const events = await collect(
      setup.client.sendMessageStream({
        ...params,
        configuration: { acceptedOutputModes: ['text/plain'], pushNotificationConfig: { url: `${setup.receiver.url}/all` } },
      }),
    );
    const taskId = events.at(-1).taskId;
    const got: any = await setup.client.getTask({ id: taskId });
    await waitUntil(async () => JSON.stringify(setup.receiver.at('/all').at(-1)?.json) === JSON.stringify(got.result));
    const bodies = setup.receiver.at('/all').map((entry) => entry.json as any);
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) expect(JSON.stringify(body)).not.toContain('a2a_bridge');
    // Each body the reply so far: the start of the finished turn's reply.
    const finished = sentText(got.result);
    for (const body of bodies) expect(finished.startsWith(sentText(body))).toBe(true);
    // The webhook costs the agent one read of the task, for the turn's end, none per streamed piece.
    expect(setup.store.loads - loadsBefore - unpushedLoads).toBeLessThanOrEqual(1);
  });
});
