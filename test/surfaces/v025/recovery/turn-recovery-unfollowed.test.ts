/**
 * A turn whose stream the agent ended at a working status, whose every subscription the agent then ends right after
 * the task's snapshot (an a2a-js 1.x executor that returned without the turn's end: nothing live is left, and the
 * task never changes). The recovery took each for a break and subscribed again until the turn's bound (600 s by
 * default); now a few seconds of such subscriptions with nothing new end the turn as one that broke off. One whose
 * snapshot shows the task went on (another replica of the agent runs it) is read on, as before.
 */
import { describe, it } from 'vitest';
import type { Message, StreamResponse, Task, TaskState } from '../../../../src/model/index.js';
import { recoverableTurn } from '../../../../src/surfaces/v025/recovery/turn-recovery.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { readText, run } from '../reply/support.js';

const sent: Message = { messageId: 'u1', role: 'ROLE_USER', contextId: 'C', parts: [{ text: 'deploy the website' }] };
const said = (messageId: string, text: string): Message => ({ messageId, role: 'ROLE_AGENT', taskId: 'T', contextId: 'C', parts: [{ text }] });
const working = said('m1', 'Deploying the website now.');
const taskAt = (state: TaskState, message: Message | undefined, history: Message[]): Task => ({
  id: 'T',
  contextId: 'C',
  status: message ? { state, message } : { state },
  history,
});

/** The turn, its stream ending at the working status; each subscription answers `snapshot(n)` (its n-th), then ends. */
function turnOf(snapshot: (n: number) => Task) {
  let subscriptions = 0;
  const port = {
    async *sendStreamingMessage(): AsyncGenerator<StreamResponse> {
      yield { task: taskAt('TASK_STATE_SUBMITTED', undefined, [sent]) };
      yield { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message: working } } };
    },
    getTask: async () => snapshot(subscriptions),
    async *subscribeToTask(): AsyncGenerator<StreamResponse> {
      yield { task: snapshot(subscriptions++) };
    },
  };
  const deps = { port, options: { requestTimeoutMs: 60_000 } } as never;
  const events = recoverableTurn({ message: sent }, { signal: new AbortController().signal } as never, deps, new TurnTracker({ sent }));
  return { events, subscriptions: () => subscriptions };
}

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('a turn whose agent runs nothing of it after its stream ended', () => {
  it.concurrent('ends within seconds as a turn that broke off, what the agent said kept', async ({ expect }) => {
    const turn = turnOf(() => taskAt('TASK_STATE_WORKING', working, [sent, working]));
    const started = Date.now();
    const events = await collect(turn.events);
    // Far below the turn's 60 s bound, whatever the host's load.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(readText(run(events))).toBe('Deploying the website now.\nThe upstream agent ended the stream before the turn finished');
  });

  it.concurrent('a snapshot that shows the agent went on: read on to the turn’s end', async ({ expect }) => {
    const step = said('m2', 'Step 1 done.');
    const done = said('m3', 'The website is deployed.');
    // The task changes on the third subscription (each of them ends at once), and is over on the sixth, seconds later.
    const turn = turnOf((n) =>
      n < 2
        ? taskAt('TASK_STATE_WORKING', working, [sent, working])
        : n < 5
          ? taskAt('TASK_STATE_WORKING', step, [sent, working, step])
          : taskAt('TASK_STATE_COMPLETED', done, [sent, working, step, done]),
    );
    const events = await collect(turn.events);
    expect(readText(run(events))).toBe('Deploying the website now.\nStep 1 done.\nThe website is deployed.');
  });
});
