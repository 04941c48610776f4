/**
 * A 0.2.5 webhook (its config sent with the message) in front of an agent whose turns all end input-required (the
 * demo agent, as iac-code): a turn's end is read from the registry once its events settled, and by then the caller
 * may have sent the next message. The receiver was pushed the next turn's Task under the first turn's event id (its
 * state and words), and the next turn's own end, reading the same, was dropped as a repeat: two turns, one body, the
 * first turn's end never told. The read is held (a hook before it, not a sleep) until the next turn has ended.
 */
import { expect, it } from 'vitest';
import type { StreamResponse } from '../../../src/model/index.js';
import { ctx, environmentSuite, flush, Receiver, startHarness, streamTurn, userText } from './harness.js';
import { waitUntil } from '../../support/wait-until.js';

const { env, open } = environmentSuite();

const ALICE_V025 = ctx('basic:alice', 'v025');

type Body = { kind: string; id: string; status: { state: string; timestamp?: string } };

/** The status the turn's stream ended with. */
const endOf = (events: StreamResponse[]) => {
  const last = events.filter((event) => 'statusUpdate' in event).at(-1);
  if (!last || !('statusUpdate' in last)) throw new Error('the turn did not end with a status update');
  return last.statusUpdate.status;
};

it("a turn's end read once the next turn ended: pushed as that turn ended, and the next turn's end with its words", async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const readReached = new Promise<void>((resolve) => (reached = resolve));
  const h = await startHarness(
    env(),
    {},
    {
      subdir: `s-${Math.random().toString(36).slice(2)}`,
      beforePushRead: async () => {
        reached();
        await released;
      },
    },
  );
  open.push(h);
  const receiver = await new Receiver().up();
  open.push({ close: () => receiver.down() });

  const first = await streamTurn(
    h.port,
    { message: userText('make a vpc'), configuration: { taskPushNotificationConfig: { url: `${receiver.url}/v025`, token: 'tok' } } },
    ALICE_V025,
  );
  // The first turn's end waits before its read; the caller's next message goes meanwhile, and its turn ends too.
  await readReached;
  const second = await streamTurn(h.port, { message: userText('now a subnet', { taskId: first.taskId }) }, ALICE_V025);
  expect(endOf(first.events).state).toBe('TASK_STATE_INPUT_REQUIRED');
  expect(endOf(second.events).state).toBe('TASK_STATE_INPUT_REQUIRED');
  release();

  // Failing, the test shows what the receiver got: waited for, not required here.
  await waitUntil(async () => receiver.at('/v025').length >= 2, 8_000).catch(() => undefined);
  await flush(h, receiver);
  const pushed = receiver.at('/v025');
  /** What a reader makes of a body: the state, when it was, and whether the next turn's reply is in it. */
  const read = (body: Body) => ({ state: body.status.state, at: body.status.timestamp, nextReply: JSON.stringify(body).includes('Echo (turn 2)') });
  expect(pushed.map((entry) => read(entry.json as Body))).toEqual([
    // The first turn's end as it ended (its own status), with none of the next turn's words.
    { state: 'input-required', at: endOf(first.events).timestamp, nextReply: false },
    // The next turn's end: the whole Task, its reply in it.
    { state: 'input-required', at: endOf(second.events).timestamp, nextReply: true },
  ]);
  expect(new Set(pushed.map((entry) => entry.headers['a2a-event-id'])).size).toBe(2);
  expect(pushed.map((entry) => (entry.json as Body).id)).toEqual([first.taskId, first.taskId]);
  expect(JSON.stringify(pushed[1]!.json)).toContain('Echo (turn 2): now a subnet');
});
