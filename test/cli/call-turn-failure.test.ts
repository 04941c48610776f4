/**
 * `a2a-bridge call` when the turn itself fails, after the card was read: the operator reads the address the turn
 * went to and what went wrong there (the host that does not resolve, the time that ran out, the stream that
 * broke), not the client's words for the gateway's callers ("Upstream agent is unavailable (A2A error -32603)").
 * The card is read at the address typed and the turn goes to that address's origin, the card's path kept: a card
 * naming another origin (after README's Bailian step 1, `public-url`, one this machine may not reach yet) is not
 * followed (upstream/card-address.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { startCuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { cli } from '../support/run-cli.js';
import { inProcess } from './in-process.js';

const PUBLIC_URL = 'https://agents.example.invalid';
/** What the demo gateway's cards name for calls, below its base URL, per protocol. */
const CALL_PATHS = { '1.0': '/', '0.2.5': '/' };

let open: RunningGateway;
let published: RunningGateway;
let notReady: RunningGateway;
let proxy: CuttingProxy;
beforeAll(async () => {
  const quiet = createLogger('silent');
  open = await startGateway(defaultConfig({ port: 0 }), quiet);
  published = await startGateway(defaultConfig({ port: 0, 'public-url': PUBLIC_URL }), quiet);
  // Up, its agent not reached: every card it serves answers 503 until it is.
  notReady = await startGateway(defaultConfig({ port: 0, upstream: { url: 'http://127.0.0.1:1' } }), quiet);
  proxy = await startCuttingProxy();
  proxy.target = { host: '127.0.0.1', port: Number(new URL(open.url).port) };
});
afterAll(async () => {
  await proxy?.close();
  await Promise.all([open?.close(), published?.close(), notReady?.close()]);
});

describe('a2a-bridge call, a turn that fails', { timeout: 60_000 }, () => {
  it('a card naming a public-url this machine cannot reach yet: the turn goes to the address typed, its origin (upstream.card-origins)', async () => {
    for (const protocol of ['1.0', '0.2.5'] as const) {
      // A card does not choose where calls (and their credentials) go: another origin than the one typed is not followed.
      const run = await (protocol === '1.0' ? cli : inProcess)(['call', published.url, 'Hello', '--protocol', protocol]);
      expect(run.code, `${protocol}: ${run.stderr}`).toBe(0);
      expect(run.stdout, protocol).toContain('Hello');
      expect(run.stderr, protocol).not.toContain(PUBLIC_URL);
    }
  });

  it('--timeout-ms running out mid-turn: said so, with the address, not as an A2A error (exit 3)', async () => {
    for (const protocol of ['1.0', '0.2.5'] as const) {
      // The demo agent's `slow:` turn streams a chunk every 100 ms, for more than two seconds.
      const run = await inProcess(['call', open.url, 'slow: take your time', '--protocol', protocol, '--timeout-ms', '1500']);
      expect(run.code, protocol).toBe(3);
      expect(run.stderr, protocol).toBe(`a2a-bridge: the call to ${open.url}${CALL_PATHS[protocol]} did not end within --timeout-ms (1500 ms)\n`);
    }
  });

  it('a stream that breaks: the reply so far ends its line before the error, which names the address (exit 3)', async () => {
    // The events up to the reply's second chunk (1.0: the task, submitted and working updates first; the facade's
    // 0.2.5 stream has fewer), then the connection is cut: the reply stops mid-line.
    for (const [protocol, method, events] of [
      ['1.0', 'SendStreamingMessage', 7],
      ['0.2.5', 'message/stream', 5],
    ] as const) {
      proxy.cutAfterEvents(method, events);
      const run = await inProcess(['call', proxy.url, 'cut me short please', '--protocol', protocol]);
      expect(run.code, protocol).toBe(3);
      expect(run.stdout, protocol).toBe('Echo (turn 1): cut \n');
      expect(run.stderr, protocol).toBe(`a2a-bridge: the call to ${proxy.url}${CALL_PATHS[protocol]} failed: other side closed\n`);
    }
  });
});

describe('a2a-bridge call and card, a gateway up but not ready', { timeout: 60_000 }, () => {
  it('says the agent is not ready (HTTP 503), not that there is no agent (exit 3)', async () => {
    for (const [command, protocol, card] of [
      ['call', 'auto', 'agent-card.json'],
      ['call', '0.2.5', 'agent.json'],
      ['card', 'auto', 'agent-card.json'],
    ] as const) {
      const run = await inProcess([command, notReady.url, ...(command === 'call' ? ['Hello'] : []), '--protocol', protocol]);
      expect(run.code, `${command} ${protocol}`).toBe(3);
      expect(run.stderr, `${command} ${protocol}`).toBe(
        `a2a-bridge: the agent at ${notReady.url} is not ready (HTTP 503 for ${notReady.url}/.well-known/${card}): try again later\n`,
      );
    }
  });
});
