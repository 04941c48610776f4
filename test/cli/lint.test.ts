import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { lintCard } from '../../src/cli/lint-card.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { cli } from '../support/run-cli.js';

const goodCard = () => ({
  name: 'agent',
  description: 'does things',
  url: 'https://agents.example.com',
  version: '1.0.0',
  protocolVersion: '0.2.5',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
  securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
  security: [{ key: [] }],
});

const failing = (card: unknown, apiKey = true) =>
  lintCard(card, { apiKey })
    .filter((r) => !r.ok && !r.warning)
    .map((r) => r.rule);

describe('lintCard: a card built to break each rule fails exactly that rule, with a fix', () => {
  it('the good card passes every rule', () => {
    expect(failing(goodCard())).toEqual([]);
  });

  const breakers: Array<[string, (card: ReturnType<typeof goodCard>) => unknown]> = [
    ['required-fields', (c) => ({ ...c, version: undefined })],
    ['protocol-version', (c) => ({ ...c, protocolVersion: '1.0' })],
    ['url-https', (c) => ({ ...c, url: 'http://agents.example.com' })],
    ['url-no-trailing-slash', (c) => ({ ...c, url: 'https://agents.example.com/' })],
    ['text-plain-modes', (c) => ({ ...c, defaultOutputModes: ['application/json'] })],
    ['skills', (c) => ({ ...c, skills: [{ id: 's', name: 'S', description: 'd', tags: [] }] })],
    ['streaming', (c) => ({ ...c, capabilities: {} })],
    ['api-key-scheme', (c) => ({ ...c, securitySchemes: { key: { type: 'http', scheme: 'bearer' } } })],
  ];
  for (const [rule, breakIt] of breakers) {
    it(`breaks ${rule}`, () => {
      const results = lintCard(breakIt(goodCard()), { apiKey: true });
      expect(failing(breakIt(goodCard()))).toEqual([rule]);
      expect(results.find((r) => r.rule === rule)?.fix).toMatch(/\w/);
    });
  }

  it('a declared but unrequired key scheme fails; without --api-key the rule is skipped', () => {
    expect(failing({ ...goodCard(), security: [] })).toEqual(['api-key-scheme']);
    expect(failing({ ...goodCard(), securitySchemes: undefined }, false)).toEqual([]);
  });
});

let open: RunningGateway;
let keyed: RunningGateway;
let broken: Server;
let brokenUrl: string;
beforeAll(async () => {
  open = await startGateway(defaultConfig({ port: 0 }), createLogger('silent'));
  keyed = await startGateway(defaultConfig({ port: 0, bailian: { 'api-key': 'bl-key' } }), createLogger('silent'));
  // An agent whose stream breaks Bailian's reading: a bare message event, no artifact text, no final.
  broken = createServer((req, res) => {
    if (req.method === 'GET') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ...goodCard(), url: brokenUrl, securitySchemes: undefined, security: undefined }));
      return;
    }
    res.setHeader('content-type', 'text/event-stream');
    res.write(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: '1', result: { kind: 'message', role: 'agent', messageId: 'm', parts: [{ kind: 'text', text: 'hi' }] } })}\n\n`,
    );
    res.end(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: '1', result: { kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'working' }, final: false } })}\n\n`,
    );
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await open?.close();
  await keyed?.close();
  broken?.close();
});

describe.concurrent('a2a-bridge lint', { timeout: 60_000 }, () => {
  it("passes the gateway's own facade (http allowed for the local test), with the test turn", async () => {
    const run = await cli(['lint', open.url, '--allow-http']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^PASS {2}stream-final +ends with a final status-update \(completed\)$/m);
    expect(run.stdout).toMatch(/^PASS {2}stream-text /m);
    expect(run.stdout).toMatch(/^WARN {2}url-https /m);
    expect(run.stdout).not.toMatch(/^FAIL/m);
  });

  it('without --allow-http a local http url fails the lint with its fix, exit 1', async () => {
    const run = await cli(['lint', open.url, '--no-turn']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^FAIL {2}url-https .*\n\s+fix: Bailian accepts only https/m);
  });

  it('with --api-key: the X-API-KEY scheme, the key sent, a call without it refused', async () => {
    const run = await cli(['lint', `${keyed.url}/.well-known/agent.json`, '--allow-http', '--api-key', 'bl-key', '--json']);
    expect(run.code).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: Array<{ rule: string; ok: boolean }> };
    expect(results.find((r) => r.rule === 'api-key-scheme')?.ok).toBe(true);
    expect(results.find((r) => r.rule === 'api-key-enforced')?.ok).toBe(true);
    expect(results.find((r) => r.rule === 'stream-text')?.ok).toBe(true);
  });

  it('a key the agent refuses (HTTP 401) is told as refused credentials, naming --api-key and bailian.api-key, exit 4', async () => {
    const wrong = await cli(['lint', keyed.url, '--allow-http', '--api-key', 'not-the-key']);
    expect(wrong.stdout).toMatch(
      /^FAIL {2}stream-answers +POST \S+\/stream answered HTTP 401: the agent refused the credentials \(the --api-key given\)\n\s+fix: pass the key the agent takes with --api-key \(on the gateway: bailian\.api-key/m,
    );
    // Not the stream's fault: the fix for a facade that does not stream would send the operator the wrong way.
    expect(wrong.stdout).not.toContain("the gateway's facade does");
    expect(wrong.code).toBe(4);
    const none = await cli(['lint', keyed.url, '--allow-http', '--json']);
    expect(none.code).toBe(4);
    const { results } = JSON.parse(none.stdout) as { results: Array<{ rule: string; detail: string; fix?: string; credentialsRefused?: boolean }> };
    expect(results.find((r) => r.rule === 'stream-answers')).toMatchObject({
      credentialsRefused: true,
      detail: expect.stringMatching(/HTTP 401: the agent refused the credentials \(no --api-key given\)$/),
      fix: expect.stringMatching(/^the agent wants a key: pass the one you will enter in Bailian with --api-key/),
    });
  });

  it('a stream Bailian cannot read fails stream-events, stream-final and stream-text', async () => {
    const run = await cli(['lint', brokenUrl, '--allow-http', '--json']);
    expect(run.code).toBe(1);
    const { results } = JSON.parse(run.stdout) as { results: Array<{ rule: string; ok: boolean; warning?: boolean }> };
    expect(results.filter((r) => !r.ok && !r.warning).map((r) => r.rule)).toEqual(['stream-events', 'stream-final', 'stream-text']);
  });

  it('exit 3 without a card, 2 for a bad command line', async () => {
    expect((await cli(['lint', 'http://127.0.0.1:1'])).code).toBe(3);
    expect((await cli(['lint'])).code).toBe(2);
  });
});
