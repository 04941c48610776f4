/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 0.2.5 agent, on a task that asks twice: the
 * user's answers stay in the task's history. The 0.2.5 SDK never stores a follow-up in its task, so its
 * GetTask reads as the agent asking twice and finishing with no reply from the user; the gateway recorded
 * the answers it passed on and keeps them, where they were said, in every view: GetTask (whole and cut by
 * historyLength), ListTasks, a blocking answer, also when the record moved on to the agent's reply while
 * the blocking answer was on its way (the caller followed the task). On the memory and the Redis store.
 */
import { randomUUID } from 'node:crypto';
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V025_QUESTION, V025_SLOW_PREFIX, startSdkV025Agent, v025Reply, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, requireRedis, EACH_STORE } from '../../support/redis.js';
import { asTask, listRequest, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { StreamReader, connectClient, taskIdOf } from './sdk1-client.js';

const ASK = 'ask: which region?';
const FIRST_ANSWER = 'ask: north';
const SECOND_ANSWER = 'south';
/** What the user reads of the whole task, oldest first: each question followed by its answer, then the reply. */
const TRANSCRIPT = [ASK, V025_QUESTION, FIRST_ANSWER, V025_QUESTION, SECOND_ANSWER, v025Reply(SECOND_ANSWER, 3).full];

const historyOf = (task: Task | undefined): string[] => (task?.history ?? []).map((message) => textOf(message));

// Each test has a conversation of its own: side by side, the agent's slow turns overlap.
describe.concurrent.each(EACH_STORE)('a 0.2.5 agent that asks twice ($name store)', ({ name, config }) => {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    if (name === 'redis') await requireRedis();
    agent = await startSdkV025Agent();
    gateway = await startTestGateway({ ...config(prefix), upstream: { url: agent.url } });
    client = await connectClient(gateway.url, 'JSONRPC');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
    if (name === 'redis') await deleteRedisKeys(prefix);
  });

  const getTask = (id: string, historyLength?: number) => client.getTask({ tenant: '', id, historyLength });
  const listed = async (contextId: string): Promise<Task | undefined> =>
    (await client.listTasks(listRequest({ contextId, historyLength: 10 }))).tasks[0];

  it('answers given on streams: GetTask, whole and cut, then ListTasks show both answers where they were given', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const stream = async (text: string, taskId?: string) =>
      new StreamReader(client.sendMessageStream(sendRequest(text, { contextId, taskId }))).rest();
    const opened = await stream(ASK);
    const taskId = opened[0]?.$case === 'task' ? opened[0].value.id : '';
    await stream(FIRST_ANSWER, taskId);
    await stream(SECOND_ANSWER, taskId);

    expect(historyOf(await getTask(taskId))).toEqual(TRANSCRIPT);
    expect(historyOf(await getTask(taskId, 3))).toEqual(TRANSCRIPT.slice(-3));
    expect(historyOf(await listed(contextId))).toEqual(TRANSCRIPT);
  });

  it('answers given by blocking sends: the last answer, GetTask and ListTasks show both answers where they were given', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const send = async (text: string, taskId?: string) => asTask(await client.sendMessage(sendRequest(text, { contextId, taskId })));
    const { id: taskId } = await send(ASK);
    await send(FIRST_ANSWER, taskId);
    const answered = await send(SECOND_ANSWER, taskId);

    expect(historyOf(answered)).toEqual(TRANSCRIPT);
    const [whole, listedTask] = await Promise.all([getTask(taskId), listed(contextId)]);
    expect(historyOf(whole)).toEqual(TRANSCRIPT);
    expect(historyOf(listedTask)).toEqual(TRANSCRIPT);
  });

  it('an answer given by a blocking send while the caller follows the task stays right after the question it answers', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const answer = `${V025_SLOW_PREFIX} north`;
    const { id: taskId } = asTask(await client.sendMessage(sendRequest(ASK, { contextId })));
    const answering = client.sendMessage(sendRequest(answer, { contextId, taskId }));
    // The caller follows the turn its answer started: the record moves on to the agent's reply before the answer comes.
    await waitUntil(async () => (await getTask(taskId)).status?.state === TaskState.TASK_STATE_WORKING);
    await new StreamReader(client.resubscribeTask({ tenant: '', id: taskId })).rest();
    const answered = asTask(await answering);

    const transcript = [ASK, V025_QUESTION, answer, v025Reply(answer, 2).full];
    expect(historyOf(answered)).toEqual(transcript);
    const [whole, listedTask] = await Promise.all([getTask(taskId), listed(contextId)]);
    expect(historyOf(whole)).toEqual(transcript);
    expect(historyOf(listedTask)).toEqual(transcript);
  });

  it('an answer given by a blocking send to a question asked while nobody watched stays right after the question', async () => {
    const contextId = `ctx-${randomUUID()}`;
    const ask = `${V025_SLOW_PREFIX} ${ASK}`;
    const hangUp = new AbortController();
    const opened = new StreamReader(client.sendMessageStream(sendRequest(ask, { contextId }), { signal: hangUp.signal }));
    const first = await opened.next();
    const taskId = first ? taskIdOf(first) : '';
    // The caller hangs up while the agent still works: the question comes when nobody reads the task.
    hangUp.abort();
    await agent.stored(taskId, 'input-required');
    const answered = asTask(await client.sendMessage(sendRequest(SECOND_ANSWER, { contextId, taskId })));

    const transcript = [ask, V025_QUESTION, SECOND_ANSWER, v025Reply(SECOND_ANSWER, 2).full];
    expect(historyOf(answered)).toEqual(transcript);
    expect(historyOf(await getTask(taskId))).toEqual(transcript);
  });
});
