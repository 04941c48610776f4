/**
 * An agent that asks again: a streamed follow-up into a task waiting for input ends input-required once more (the
 * next question), with no working state between. The webhook must be pushed each question, as the caller's stream
 * showed it. It was pushed the first only: the state had not changed, so the next question was taken for a chunk of
 * the last turn's end, and the receiver waited for a question it was never told.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { turnEvents } from '../../support/sdk-v1-agent-kit.js';
import { collect, connect, payloadRef, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import type { Receiver } from './harness.js';
import { startSdkPushBench, type SdkPushBench } from './sdk-push-bench.js';

const QUESTIONS = ['Which date should I book?', 'And which time?'];
const DONE = 'Booked for Monday at 9:00.';

/** A real a2a-js 1.x agent filling a form: a question per turn, each a follow-up's Task as found, then the question. */
const asked = new Map<string, number>();
const formFiller: AgentExecutor = {
  async execute(request, bus) {
    const { opening, status } = turnEvents(request);
    const turn = asked.get(request.taskId) ?? 0;
    asked.set(request.taskId, turn + 1);
    // The SDK refuses a follow-up's stream that does not open with the Task.
    bus.publish(request.task ? AgentEvent.task(request.task) : opening());
    const question = QUESTIONS[turn];
    bus.publish(question ? status(TaskState.TASK_STATE_INPUT_REQUIRED, question) : status(TaskState.TASK_STATE_COMPLETED, DONE));
  },
  cancelTask: async () => undefined,
};

let bench: SdkPushBench;
let gateway: TestGateway;
let receiver: Receiver;

beforeAll(async () => {
  bench = await startSdkPushBench(
    { name: 'form-filler', description: 'asks a question a turn', skill: { id: 'f', name: 'F', description: 'f' } },
    formFiller,
  );
  ({ gateway, receiver } = bench);
});
afterAll(() => bench?.close());

type Status = { state: string; message?: { parts: Array<{ text?: string }> } };
/** A turn's end read once the next turn began is pushed as the update it is (src/push/v1-turn-end.ts), else as the Task. */
type Body = { task?: { status: Status }; statusUpdate?: { status: Status } };
const statusOf = (body: Body): Status | undefined => (body.task ?? body.statusUpdate)?.status;
const said = (body: Body): string => (statusOf(body)?.message?.parts ?? []).map((part) => part.text ?? '').join('');

it('a streamed follow-up that asks again: the webhook is pushed each question, once, in order, then the end', async () => {
  const { client } = await connect(gateway.url, 'JSONRPC');
  const path = `/form-${randomUUID()}`;
  const hook = { tenant: '', id: 'form', taskId: '', url: `${receiver.url}${path}`, token: 'tok', authentication: undefined };
  const first = await collect(
    client.sendMessageStream({
      ...sendRequest('book a flight'),
      configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: false, taskPushNotificationConfig: hook },
    }),
  );
  const ids = payloadRef(first[0]!);
  const streamedWords: string[] = [];
  for (const answer of ['Monday', '9:00']) {
    const events = await collect(client.sendMessageStream(sendRequest(answer, ids)));
    const end = events.at(-1)!;
    if (end.$case === 'statusUpdate') streamedWords.push(textOf(end.value.status?.message));
  }
  // What the caller's streams ended on: the second question, then the booking.
  expect(streamedWords).toEqual([QUESTIONS[1], DONE]);
  await waitUntil(async () => receiver.at(path).some((entry) => statusOf(entry.json as Body)?.state === 'TASK_STATE_COMPLETED'), 8_000);
  const bodies = receiver.at(path).map((entry) => entry.json as Body);
  expect(bodies.map((body) => [statusOf(body)?.state, said(body)])).toEqual([
    ['TASK_STATE_INPUT_REQUIRED', QUESTIONS[0]],
    ['TASK_STATE_INPUT_REQUIRED', QUESTIONS[1]],
    ['TASK_STATE_COMPLETED', DONE],
  ]);
});
