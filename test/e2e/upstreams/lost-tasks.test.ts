/**
 * A 0.2.5 agent that keeps its tasks in memory (the a2a-js 0.2.5 SDK's InMemoryTaskStore) restarts and
 * forgets every task. What the gateway recorded is not lost with it: GetTask and ListTasks answer from
 * the record, alike; a finished task as it finished, a task the agent can no longer finish (it waited for
 * an answer, or was still working) as failed, saying why. Before, GetTask said TaskNotFound while
 * ListTasks showed the task waiting or working for ever. As the official a2a-js 1.x client sees it.
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_LOST_TASK } from '../../../src/core/lost-tasks.js';
import { V025_QUESTION } from '../../support/sdk-v025-agent.js';
import {
  StreamReader,
  artifactText,
  asTask,
  listRequest,
  rejectionOf,
  sendRequest,
  textOf,
  wireCode,
  type TransportName,
} from '../../support/sdk-v1-client.js';
import { outline } from './sdk1-client.js';
import { v025AgentBehindGateway } from './v025-agent-behind-gateway.js';

// Every describe block has an agent and a gateway of its own, and waits out its tasks.lost-after-ms: the blocks run
// side by side; inside one, the tests run one after another, as they read what the ones before left recorded.
describe.concurrent.each(['JSONRPC', 'HTTP+JSON'] as const)('tasks a restarted 0.2.5 agent forgot, over %s', (transport: TransportName) => {
  // Lost at the first not-found here; the window a blink is given is in the second block below.
  const running = v025AgentBehindGateway(transport, { tasks: { 'lost-after-ms': 0 } }, { slowChunkDelayMs: 500 });
  const ids = { done: '', waiting: '', working: '' };

  beforeAll(async () => {
    const { client } = running;
    ids.done = asTask(await client.sendMessage(sendRequest('hello'))).id;
    ids.waiting = asTask(await client.sendMessage(sendRequest('ask: which region?'))).id;
    // A streamed turn its caller leaves while it works: the gateway last saw it working.
    const caller = new AbortController();
    const stream = new StreamReader(client.sendMessageStream(sendRequest('slow: a long one'), { signal: caller.signal }));
    const first = await stream.expectNext();
    ids.working = first.$case === 'task' ? first.value.id : '';
    caller.abort();
    await stream.close();
    await running.restartAgent();
  });

  const getTask = (id: string): Promise<Task> => running.client.getTask({ tenant: '', id, historyLength: undefined });

  it.sequential('a finished task is answered as it finished, its reply included', async () => {
    const done = await getTask(ids.done);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(done)).toBe('v025 echo (turn 1): hello');
  });

  it.sequential('a task that waited for an answer is failed, saying why; its question stays in the history', async () => {
    const waiting = await getTask(ids.waiting);
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(waiting.status?.message)).toBe(AGENT_LOST_TASK);
    expect(waiting.history.map(textOf)).toContain(V025_QUESTION);
  });

  it.sequential('CancelTask of a finished or lost task the agent no longer knows is not cancelable, as GetTask tells', async () => {
    for (const id of [ids.done, ids.waiting]) {
      const refusal = await rejectionOf(running.client.cancelTask({ tenant: '', id, metadata: undefined }));
      expect(refusal).toMatchObject({ code: wireCode(transport, -32002), reason: 'TASK_NOT_CANCELABLE' });
    }
  });

  it.sequential('SubscribeToTask of a task recorded failed as lost is refused as a finished task is', async () => {
    const refusal = await rejectionOf(running.client.resubscribeTask({ tenant: '', id: ids.waiting }));
    expect(refusal).toMatchObject({ code: wireCode(transport, -32004), reason: 'UNSUPPORTED_OPERATION' });
  });

  it.sequential('ListTasks says what GetTask says, for the task last seen working too', async () => {
    const listed = (await running.client.listTasks(listRequest())).tasks;
    const states = Object.fromEntries(listed.map((task) => [task.id, task.status?.state]));
    expect(states).toEqual({
      [ids.done]: TaskState.TASK_STATE_COMPLETED,
      [ids.waiting]: TaskState.TASK_STATE_FAILED,
      [ids.working]: TaskState.TASK_STATE_FAILED,
    });
    expect(textOf((await getTask(ids.working)).status?.message)).toBe(AGENT_LOST_TASK);
  });
});

describe.concurrent('one TaskNotFound (a blink of the agent, a proxy answering 404) is no loss yet', () => {
  const running = v025AgentBehindGateway('JSONRPC');

  it('a task that waits is answered from the record as it is, by GetTask and ListTasks alike, within tasks.lost-after-ms', async () => {
    const { client } = running;
    const waiting = asTask(await client.sendMessage(sendRequest('ask: which region?')));
    await running.restartAgent();
    const got = await client.getTask({ tenant: '', id: waiting.id, historyLength: undefined });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(got.status?.message)).toBe(V025_QUESTION);
    const listed = (await client.listTasks(listRequest())).tasks;
    expect(listed.map((task) => [task.id, task.status?.state])).toEqual([[waiting.id, TaskState.TASK_STATE_INPUT_REQUIRED]]);
  });
});

describe.concurrent.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'CancelTask of an unfinished task a restarted 0.2.5 agent forgot, over %s',
  (transport) => {
    const lostAfterMs = 1_000;
    const running = v025AgentBehindGateway(transport, { tasks: { 'lost-after-ms': lostAfterMs } }, { slowChunkDelayMs: 500 });
    const ids = { waiting: '', working: '' };

    beforeAll(async () => {
      const { client } = running;
      ids.waiting = asTask(await client.sendMessage(sendRequest('ask: which region?'))).id;
      ids.working = await leftWorking(client);
      await running.restartAgent();
    });

    it('cancels it once it is lost (not known for tasks.lost-after-ms): recorded canceled and answered so, as GetTask and ListTasks then tell', async () => {
      const { client } = running;
      for (const id of [ids.waiting, ids.working]) {
        const started = Date.now();
        const canceled = await client.cancelTask({ tenant: '', id, metadata: undefined });
        // Not at the first not-found, which may be a blink of an agent that runs the task on.
        expect(Date.now() - started).toBeGreaterThanOrEqual(lostAfterMs - 50);
        expect([canceled.id, canceled.status?.state]).toEqual([id, TaskState.TASK_STATE_CANCELED]);
        const got = await client.getTask({ tenant: '', id, historyLength: undefined });
        expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        const again = await rejectionOf(client.cancelTask({ tenant: '', id, metadata: undefined }));
        expect(again).toMatchObject({ code: wireCode(transport, -32002), reason: 'TASK_NOT_CANCELABLE' });
      }
      // The question the waiting task asked stays in its history.
      expect((await client.getTask({ tenant: '', id: ids.waiting, historyLength: undefined })).history.map(textOf)).toContain(V025_QUESTION);
      const listed = (await client.listTasks(listRequest())).tasks.map((task) => task.status?.state);
      expect(listed).toEqual([TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_CANCELED]);
    });
  },
);

describe.concurrent.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'SubscribeToTask of a working task a restarted 0.2.5 agent forgot, over %s',
  (transport) => {
    const running = v025AgentBehindGateway(transport, { tasks: { 'lost-after-ms': 1_500 } }, { slowChunkDelayMs: 500 });

    it('follows it from the record: the Task as recorded first, then its failure once it is lost, which ends the stream', async () => {
      const { client } = running;
      const id = await leftWorking(client);
      await running.restartAgent();
      const payloads = await new StreamReader(client.resubscribeTask({ tenant: '', id })).rest();
      expect(payloads.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_FAILED']);
      expect(payloads[0]?.$case === 'task' && payloads[0].value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      expect(payloads[1]?.$case === 'statusUpdate' && textOf(payloads[1].value.status?.message)).toBe(AGENT_LOST_TASK);
      const got = await client.getTask({ tenant: '', id, historyLength: undefined });
      expect([got.status?.state, textOf(got.status?.message)]).toEqual([TaskState.TASK_STATE_FAILED, AGENT_LOST_TASK]);
    });
  },
);

/** A streamed turn its caller leaves while it works: the gateway last saw it working. */
async function leftWorking(client: Client): Promise<string> {
  const caller = new AbortController();
  const stream = new StreamReader(client.sendMessageStream(sendRequest('slow: a long one'), { signal: caller.signal }));
  const first = await stream.expectNext();
  caller.abort();
  await stream.close();
  return first.$case === 'task' ? first.value.id : '';
}
