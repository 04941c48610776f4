/**
 * A follow-up sent without waiting (`returnImmediately`, its webhook with it) into a task waiting for input: a real
 * a2a-js 1.x agent answers it with the task as it found it, the last turn's question (input-required, stamped before
 * this turn's message), and goes on with the turn. The follow took that answer for the turn's end and did not follow:
 * the next question was pushed only when the caller sent the turn after it, and the booking (the task's completion)
 * never. The receiver must be pushed each turn's own end, before the caller says anything more, whether the agent
 * ends the turn at once (a follow that subscribes late finds it over) or works on a while (the follow hears it live).
 * An end in the state the task was found in is this turn's even when it tells nothing of itself (no timestamp, no
 * message; the question in an artifact): the gateway counts the state a turn answered as found ends in as a change.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { textPart, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import { asTask, collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import type { Receiver } from './harness.js';
import { startSdkPushBench, type SdkPushBench } from './sdk-push-bench.js';

const QUESTIONS = ['Which date should I book?', 'And which time?'];
const DONE = 'Booked.';

/**
 * How the agent goes about a follow-up, per task: at once, working a while first, or asking its question in an
 * artifact under a status that tells nothing of itself (no timestamp, no message: A2A leaves both optional).
 */
const pace = new Map<string, 'at once' | 'after working' | 'unstamped' | 'thinking'>();
/** A thinking agent's follow-up asks its question once the test lets it: it says nothing before (no working state). */
let thought: () => void = () => undefined;
const asked = new Map<string, number>();

/** Books a table: a question a turn; a follow-up opens with the task as found (which a non-blocking send is answered). */
const booker: AgentExecutor = {
  async execute(request, bus) {
    const { opening, status, artifact } = turnEvents(request);
    const turn = asked.get(request.taskId) ?? 0;
    asked.set(request.taskId, turn + 1);
    bus.publish(request.task ? AgentEvent.task(request.task) : opening());
    if (request.task && pace.get(request.taskId) === 'after working') {
      bus.publish(status(TaskState.TASK_STATE_WORKING));
      await sleep(150);
    }
    const question = QUESTIONS[turn];
    if (question && request.task && pace.get(request.taskId) === 'thinking') await new Promise<void>((resolve) => (thought = resolve));
    if (question && request.task && pace.get(request.taskId) === 'unstamped') {
      const { taskId, contextId } = request;
      bus.publish(artifact('question', [textPart(question)], false, true));
      const untold = { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: undefined, timestamp: undefined };
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: untold, metadata: undefined }));
      return;
    }
    bus.publish(question ? status(TaskState.TASK_STATE_INPUT_REQUIRED, question) : status(TaskState.TASK_STATE_COMPLETED, DONE));
  },
  cancelTask: async () => undefined,
};

let bench: SdkPushBench;
let gateway: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  bench = await startSdkPushBench({ name: 'booker', description: 'asks, then books', skill: { id: 'b', name: 'B', description: 'b' } }, booker);
  ({ gateway, receiver } = bench);
});
afterAll(() => bench?.close());

type Parts = { parts: Array<{ text?: string }> };
type Body = { task?: { id: string; status: { state: string; message?: Parts }; artifacts?: Parts[] } };
const textOf = (parts: Parts[]): string => parts.flatMap((each) => each.parts.map((part) => part.text ?? '')).join('');
const seen = (body: Body): [string | undefined, string] => [
  body.task?.status.state,
  textOf(body.task?.status.message ? [body.task.status.message] : []),
];

/** The caller's sends of one booking, each with the webhook at `path`. */
function booking(path: string) {
  const hook = { tenant: '', id: 'booking', taskId: '', url: `${receiver.url}${path}`, token: 'tok', authentication: undefined };
  return (text: string, ids: { taskId?: string; contextId?: string }, returnImmediately: boolean): SendMessageRequest => ({
    ...sendRequest(text, ids),
    configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately, taskPushNotificationConfig: hook },
  });
}

/**
 * A booking whose first question was pushed, then answered by a returnImmediately follow-up that the agent (going
 * about it `how`) answers with the task as found: the last turn's question, still waiting for input.
 */
async function answeredAsFound(name: string, how: Parameters<typeof pace.set>[1]) {
  const { client } = await connect(gateway.url, 'JSONRPC');
  const path = `/${name}-${randomUUID()}`;
  const send = booking(path);
  const first = asTask(await client.sendMessage(send('book a table', {}, false)));
  pace.set(first.id, how);
  const ids = { taskId: first.id, contextId: first.contextId };
  await receiver.waitFor(path, 1);
  const answered = asTask(await client.sendMessage(send('Monday', ids, true)));
  expect(answered.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  return { client, path, send, ids };
}

/** What the receiver gets of a whole booking: each question, then the booking done. */
const EVERY_TURN_PUSHED = [
  ['TASK_STATE_INPUT_REQUIRED', QUESTIONS[0]],
  ['TASK_STATE_INPUT_REQUIRED', QUESTIONS[1]],
  ['TASK_STATE_COMPLETED', DONE],
];

it.each(['at once', 'after working'] as const)(
  'a returnImmediately follow-up answered with the task as found, the agent ending the turn %s: its own end is pushed',
  async (how) => {
    const { client, path, send, ids } = await answeredAsFound('booking', how);
    await receiver.waitFor(path, 2);

    await client.sendMessage(send('9:00', ids, true));
    await receiver.waitFor(path, 3);

    expect(receiver.at(path).map((entry) => seen(entry.json as Body))).toEqual(EVERY_TURN_PUSHED);
  },
);

it('a returnImmediately follow-up answered with the task as found, asking again under a status that tells nothing: pushed', async () => {
  const { client, path, send, ids } = await answeredAsFound('unstamped', 'unstamped');
  await receiver.waitFor(path, 2);

  // Blocking: the task waits under a status that tells nothing of itself, which a returnImmediately answer repeating
  // it could not be told from this turn's end by (as-found.ts).
  await client.sendMessage(send('9:00', ids, false));
  const pushed = (await receiver.waitFor(path, 3)).map((entry) => entry.json as Body);

  expect(pushed.map(seen)).toEqual([
    ['TASK_STATE_INPUT_REQUIRED', QUESTIONS[0]],
    ['TASK_STATE_INPUT_REQUIRED', ''],
    ['TASK_STATE_COMPLETED', DONE],
  ]);
  expect(textOf(pushed[1]!.task?.artifacts ?? [])).toBe(QUESTIONS[1]);
});

it('a returnImmediately follow-up answered with the task as found, looked at by a subscription while the agent thinks: its end is pushed', async () => {
  const { client, path, send, ids } = await answeredAsFound('looked-at', 'thinking');
  // The task as it stands (the gateway answers a subscription to a task waiting for input with its Task alone):
  // still the last turn's question, which is no end of this turn.
  const looked = await collect(client.resubscribeTask({ tenant: '', id: ids.taskId }));
  expect(looked.map((payload) => payload.$case === 'task' && payload.value.status?.state)).toEqual([TaskState.TASK_STATE_INPUT_REQUIRED]);
  thought();
  await receiver.waitFor(path, 2);

  await client.sendMessage(send('9:00', ids, true));
  await receiver.waitFor(path, 3);

  expect(receiver.at(path).map((entry) => seen(entry.json as Body))).toEqual(EVERY_TURN_PUSHED);
});
