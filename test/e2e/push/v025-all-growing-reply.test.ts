/**
 * With `push-events: all`, a Bailian webhook is pushed the facade's tasks/get Task per change (pushed-task.ts). A
 * working task reads through task-working-turn.ts, which holds back the words of the turn's last message id and
 * its files until their place is sure, each read on its own: body after body the reply a receiver shows shrank
 * and came back ("Hello world." → no artifact → "Hello world.\nmain.tf …" → none again). Each body now shows at
 * least the reply of the body before it (pushed-replies.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { waitUntil } from '../../support/wait-until.js';
import { Receiver } from './harness.js';

let fake: FakeIacCode;
let gateway: RunningGateway;
let receiver: Receiver;
let dir: string;
beforeAll(async () => {
  // Frames far enough apart that each change is rendered while the turn still works.
  fake = await startFakeIacCode({ frameDelayMs: 150 });
  receiver = await new Receiver().up();
  dir = await mkdtemp(join(tmpdir(), 'push-all-growing-'));
  gateway = await startFacadeGateway({
    upstream: { url: fake.url },
    'push-notifications': true,
    'push-allow-private': true,
    'push-events': 'all',
    'persistence-dir': dir,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
});

it('push-events: all: each body shows at least the reply the body before it showed', async () => {
  const stream = await openStream(`${gateway.url}/`, 'message/stream', {
    message: userMessage({ text: 'make a vpc' }),
    configuration: { acceptedOutputModes: ['text/plain'], pushNotificationConfig: { url: `${receiver.url}/all` } },
  });
  await stream.rest();
  const stateOf = (entry: { json: unknown }) => (entry.json as { status: { state: string } }).status.state;
  await waitUntil(async () => receiver.at('/all').some((entry) => stateOf(entry) === 'completed'));
  const replies = receiver.at('/all').map((entry) => sentText(entry.json));
  expect(replies.length).toBeGreaterThan(2);
  for (let i = 1; i < replies.length; i++) {
    // Was: "Hello world." then "" (the reply artifact gone), then "Hello world.\nmain.tf (text/plain, 14 bytes)", then "".
    expect({ at: i, reply: replies[i], startsWith: replies[i - 1] }).toEqual({
      at: i,
      reply: expect.stringMatching(new RegExp(`^${escape(replies[i - 1]!)}`)),
      startsWith: replies[i - 1],
    });
  }
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
