/**
 * iac-code's stream breaks off mid-turn (a cut connection, a proxy that closed it): the facade follows the
 * task again with SubscribeToTask, shows what the broken stream missed from the subscription's snapshot and
 * relays the rest live, so that at every break point message/send and message/stream show what they show
 * of the unbroken turn. When iac-code refuses the subscription, the task is read instead (GetTask).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode, type Fault } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const BEFORE = ['Drafting ', 'main.tf.'];
const AFTER = ['Wrote ', 'main.tf ✓'];
const TEMPLATE = 'resource "alicloud_vpc" "main" {}\n';
/** The frames of the scripted turn: the task, 2 statuses, 2 chunks, usage, 3 tool frames, the file, the tool's end, 2 chunks, usage, the final text, input-required. */
const FRAMES = 16;
/** Every break point: after the first frame (which names the task) up to before the last. */
const BREAKS = Array.from({ length: FRAMES - 1 }, (_, i) => i + 1);

/** The fake iac-code behind a facade gateway for one describe block, and what a caller reads of a turn. */
function iacCodeBehindFacade(frameDelayMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-resubscribe-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  const running = {
    get fake() {
      return fake;
    },
    /** What message/send and message/stream show of the unbroken turn. */
    unbroken: { sent: '', streamed: '' },
    async send(fault?: Fault): Promise<string> {
      if (fault) fake.injectFault(fault, { method: 'SendStreamingMessage' });
      const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }) });
      expect(answer.body.result.status.state).toBe('completed');
      return sentText(answer.body.result);
    },
    async stream(fault?: Fault): Promise<string> {
      if (fault) fake.injectFault(fault, { method: 'SendStreamingMessage' });
      const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Create a VPC' }) });
      const frames = await opened.rest();
      expect(frames.every((frame) => frame.json.error === undefined)).toBe(true);
      const events = results(frames);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      return streamedText(events);
    },
    /** The text `run` reads, and the SubscribeToTask calls made meanwhile. */
    async subscriptions(run: () => Promise<string>): Promise<{ text: string; subscribed: number }> {
      const before = fake.rpcRequests('SubscribeToTask').length;
      const text = await run();
      return { text, subscribed: fake.rpcRequests('SubscribeToTask').length - before };
    },
  };
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: { before: BEFORE, after: AFTER, artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir } },
      frameDelayMs,
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
    running.unbroken = { sent: await running.send(), streamed: await running.stream() };
    expect(running.unbroken.streamed).toBe(running.unbroken.sent);
    expect(running.unbroken.sent).toContain(TEMPLATE);
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return running;
}

// `gap`: the events iac-code sends between the break and the subscription, which only its snapshot tells.
describe.each([0, 1, 2])('facade → iac-code whose stream breaks off mid-turn, subscribed %i events past the break', (gap) => {
  const facade = iacCodeBehindFacade(0);
  it.each(BREAKS)('broken after frame %i: message/send and message/stream show the unbroken turn', async (after) => {
    const live = after + gap < FRAMES;
    const sent = await facade.subscriptions(() => facade.send({ name: 'kill-mid-stream', after, gap }));
    expect(sent.text).toBe(facade.unbroken.sent);
    if (live) expect(sent.subscribed).toBe(1);
    const streamed = await facade.subscriptions(() => facade.stream({ name: 'end-mid-stream', after, gap }));
    expect(streamed.text).toBe(facade.unbroken.streamed);
    if (live) expect(streamed.subscribed).toBe(1);
  });
});

describe('facade → iac-code whose stream and resubscription break off', () => {
  // The turn takes a while (30 ms a frame), so that it still runs when the facade subscribes again.
  const facade = iacCodeBehindFacade(30);

  it('the subscription breaks off too: the facade subscribes again and the turn still reads as unbroken', async () => {
    // The first subscription is cut after its snapshot and one live event; the second follows the turn to its end.
    facade.fake.injectFault({ name: 'kill-mid-stream', after: 2 }, { method: 'SubscribeToTask' });
    const sent = await facade.subscriptions(() => facade.send({ name: 'kill-mid-stream', after: 4, gap: 0 }));
    expect(sent.text).toBe(facade.unbroken.sent);
    expect(sent.subscribed).toBeGreaterThanOrEqual(2);
    facade.fake.injectFault({ name: 'end-mid-stream', after: 3 }, { method: 'SubscribeToTask' });
    const streamed = await facade.subscriptions(() => facade.stream({ name: 'end-mid-stream', after: 2, gap: 0 }));
    expect(streamed.text).toBe(facade.unbroken.streamed);
    expect(streamed.subscribed).toBeGreaterThanOrEqual(2);
  });

  it('iac-code refuses the subscription: the task is read instead, and the turn reads as unbroken', async () => {
    facade.fake.injectFault('internal-error', { method: 'SubscribeToTask' });
    const reads = facade.fake.rpcRequests('GetTask').length;
    const sent = await facade.subscriptions(() => facade.send({ name: 'kill-mid-stream', after: 4, gap: 0 }));
    expect(sent.text).toBe(facade.unbroken.sent);
    expect(sent.subscribed).toBe(1);
    expect(facade.fake.rpcRequests('GetTask').length).toBeGreaterThan(reads + 1);
    facade.fake.injectFault('internal-error', { method: 'SubscribeToTask' });
    const streamed = await facade.subscriptions(() => facade.stream({ name: 'end-mid-stream', after: 11, gap: 0 }));
    expect(streamed.text).toBe(facade.unbroken.streamed);
    expect(streamed.subscribed).toBe(1);
  });
});
