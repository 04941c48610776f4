/**
 * With `push-events: all`, a 0.2.5 receiver is sent the whole Task for every change; a change whose Task
 * reads the same as one already sent to that config (artifact updates of a turn read after it ended) is
 * not sent again under another event id: every body a receiver gets tells it something new.
 */
import { expect, it } from 'vitest';
import { ctx, environmentSuite, flush, Receiver, startHarness, streamTurn, userText } from './harness.js';
import { waitUntil } from '../../support/wait-until.js';

const { env, open } = environmentSuite();

const ALICE_V025 = ctx('basic:alice', 'v025');

it('push-events: all sends a 0.2.5 config no Task body twice, and its last one is the finished turn', async () => {
  const h = await startHarness(env(), { 'push-events': 'all' }, { subdir: `s-${Math.random().toString(36).slice(2)}` });
  open.push(h);
  const receiver = await new Receiver().up();
  open.push({ close: () => receiver.down() });

  const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V025);
  await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}/v025` }, ALICE_V025);
  const second = await streamTurn(h.port, { message: userText('go on', { taskId: first.taskId }) }, ALICE_V025);
  expect(second.events.filter((event) => 'artifactUpdate' in event).length).toBeGreaterThan(0);
  // A 0.2.5 body is read once the turn settled, so queued after the stream ended: waited for, then a
  // sentinel delivered after whatever was queued with it.
  const stateOf = (entry: { json: unknown }) => (entry.json as { status: { state: string } }).status.state;
  await waitUntil(async () => receiver.at('/v025').some((entry) => stateOf(entry) === 'input-required'));
  await flush(h, receiver);

  const bodies = receiver.at('/v025').map((entry) => JSON.stringify(entry.json));
  expect(bodies.length).toBeGreaterThan(0);
  expect(new Set(bodies).size).toBe(bodies.length);
  expect(receiver.at('/v025').at(-1)!.json).toMatchObject({ kind: 'task', id: first.taskId, status: { state: 'input-required' } });
  expect(receiver.at('/v025').filter((entry) => stateOf(entry) === 'input-required')).toHaveLength(1);
});
