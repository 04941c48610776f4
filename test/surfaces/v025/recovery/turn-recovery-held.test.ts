/**
 * A follow-up whose stream broke right after the waiting task it opened with: the agent may go on with the
 * answer (a2a-js 1.x opens with the task as it took it up), or that task may be the whole answer. The
 * recovery reads on for a moment, then takes the task as it stands for the answer, instead of reading to
 * the turn's bound (600 s by default) and failing.
 */
import { describe, expect, it } from 'vitest';
import { A2AError, type Message, type StreamResponse, type Task } from '../../../../src/model/index.js';
import { recoverableTurn } from '../../../../src/surfaces/v025/recovery/turn-recovery.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { readText, run } from '../reply/support.js';

const question: Message = { messageId: 'q2', role: 'ROLE_AGENT', parts: [{ text: 'Which date?' }] };

function turnOf(next: () => Task) {
  const opening: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question }, history: [] };
  const port = {
    async *sendStreamingMessage(): AsyncGenerator<StreamResponse> {
      yield { task: opening };
      throw new Error('socket hang up');
    },
    getTask: async () => next(),
    // eslint-disable-next-line require-yield
    async *subscribeToTask(): AsyncGenerator<StreamResponse> {
      throw A2AError.taskNotActive('T');
    },
  };
  const deps = { port, options: { requestTimeoutMs: 60_000 } } as never;
  const sent: Message = { messageId: 'u2', role: 'ROLE_USER', taskId: 'T', contextId: 'C', parts: [{ text: 'tomorrow' }] };
  const request = { message: sent } as never;
  return { opening, events: recoverableTurn(request, { signal: new AbortController().signal } as never, deps, new TurnTracker({ sent })) };
}

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('a follow-up broken right after its opening waiting task', () => {
  it('that task unchanged is the answer: the turn ends within a few seconds, not at its bound', async () => {
    let opening: Task | undefined;
    const turn = turnOf(() => opening as Task);
    opening = turn.opening;
    const started = Date.now();
    const events = await collect(turn.events);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(events[0]).toEqual({ task: turn.opening });
    // What a Bailian user reads: the question, once.
    expect(readText(run(events))).toBe('Which date?');
  });

  it('the agent going on is read as before', async () => {
    const answered: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'a2', role: 'ROLE_AGENT', parts: [{ text: 'Booked for tomorrow.' }] } },
      // The agent's SDK records the follow-up in the history: what the turn said starts after it.
      history: [question, { messageId: 'u2', role: 'ROLE_USER', parts: [{ text: 'tomorrow' }] }],
    };
    const events = await collect(turnOf(() => answered).events);
    const last = events.at(-1);
    expect(last && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined).toBe('TASK_STATE_COMPLETED');
    expect(readText(run(events))).toBe('Booked for tomorrow.');
  });
});
