/**
 * The 0.2.5 pass-through relay's bound on a frozen agent's silence (`stream-idle-timeout-ms`): its one timer
 * is let go of however the stream ends, and its error frame is an event of its own even when the agent froze
 * in the middle of one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { createV025PassThrough } from '../../../src/upstream/v025/passthrough.js';
import { sse, startFakeV025 } from '../../support/fake-v025.js';
import { closeAll, open } from '../support.js';

afterEach(closeAll);

const IDLE_MS = 200;
const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'message/stream',
  params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
});
const request = (url: string): Request =>
  new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body });
const working = (id: unknown): string =>
  `data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { kind: 'status-update', taskId: 't', contextId: 'c', final: false, status: { state: 'working' } } })}\n\n`;

describe('the relay of a 0.2.5 stream', () => {
  it('a stream the agent cuts mid-body leaves no timer behind (it re-armed itself forever)', async () => {
    const fake = await startFakeV025({
      rpc: {
        'message/stream': (call, res) => {
          sse(res, [working(call.id)], { keepOpen: true });
          setTimeout(() => res.socket?.destroy(), 50);
        },
      },
    });
    open.push(fake);
    const relay = createV025PassThrough({ baseUrl: fake.url, config: UpstreamConfig.parse({ 'stream-idle-timeout-ms': IDLE_MS }) });
    open.push(relay);
    const before = timers();
    for (let i = 0; i < 5; i++) {
      const reader = (await relay.forward(request(fake.url), body)).body!.getReader();
      await (async () => {
        for (;;) if ((await reader.read()).done) return;
      })().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 4));
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('an agent that froze in the middle of an event: the error frame still reads as one of its own', async () => {
    const fake = await startFakeV025({
      rpc: {
        'message/stream': (call, res) =>
          sse(res, [`data: {"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":{"kind":"status-upd`], { keepOpen: true }),
      },
    });
    open.push(fake);
    const relay = createV025PassThrough({ baseUrl: fake.url, config: UpstreamConfig.parse({ 'stream-idle-timeout-ms': IDLE_MS }) });
    open.push(relay);
    const text = await (await relay.forward(request(fake.url), body)).text();
    const events = text
      .split('\n\n')
      .filter((event) => event.trim() !== '')
      .map((event) => {
        try {
          return JSON.parse(event.replace(/^data: /, '')) as { error?: { code: number; message: string } };
        } catch {
          return undefined;
        }
      });
    expect(events.at(-1)?.error).toMatchObject({ code: -32603, message: expect.stringContaining('nothing from the agent') });
  });
});
