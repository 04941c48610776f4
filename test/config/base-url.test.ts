import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load, configError } = configFolder();

describe('base URLs: upstream.url and public-url take no query or fragment', () => {
  it('refuses a query or a fragment in upstream.url, naming the key and where credentials go, never the value', async () => {
    for (const url of ['http://127.0.0.1:20851/?api_key=SECRETX', 'http://agent:8080/a2a?v=1', 'http://agent:8080/#SECRETX']) {
      const message = await configError(['--upstream', url]);
      expect(message).toMatch(
        /^ {2}- upstream\.url: must not have a query \(\?…\) or fragment \(#…\): the gateway appends paths to it; credentials go in upstream\.auth \(from --upstream\)$/m,
      );
      expect(message).not.toContain('SECRETX');
    }
  });

  it('refuses them in public-url too, which the cards and the JWKS URL are built on', async () => {
    const message = await configError([], { A2A_BRIDGE_PUBLIC_URL: 'https://gw.example.com/a2a?x=1' });
    expect(message).toMatch(
      /^ {2}- public-url: must not have a query \(\?…\) or fragment \(#…\): the gateway appends paths to it \(from A2A_BRIDGE_PUBLIC_URL\)$/m,
    );
  });

  it('takes a base with a path, with or without a trailing slash; tracing.otlp-endpoint may keep its query', async () => {
    const { config } = await load(['--upstream', 'http://agent:8080/a2a/', '--public-url', 'https://gw.example.com/agents'], {
      A2A_BRIDGE_TRACING__OTLP_ENDPOINT: 'http://collector:4318/v1/traces?tenant=a',
    });
    expect(config.upstream.url).toBe('http://agent:8080/a2a/');
    expect(config['public-url']).toBe('https://gw.example.com/agents');
    expect(config.tracing['otlp-endpoint']).toBe('http://collector:4318/v1/traces?tenant=a');
  });
});

describe("upstream.url: the agent's base URL, not its card's", () => {
  it('refuses the card URL an operator copied, naming the base URL to give instead (without credentials)', async () => {
    const cases = [
      ['http://127.0.0.1:41242/.well-known/agent-card.json', 'http://127.0.0.1:41242'],
      ['http://agent:8080/.well-known/agent.json', 'http://agent:8080'],
      ['https://user:SECRETX@agent.example.com/a2a/.well-known/agent.json/', 'https://agent.example.com/a2a'],
    ];
    for (const [url, base] of cases) {
      const message = await configError(['--upstream', url!]);
      const lines = message.split('\n').slice(1);
      expect(lines).toEqual([
        `  - upstream.url: this is the agent card's URL; give the agent's base URL, ${base} (the gateway reads the card at <url>/.well-known/agent-card.json or agent.json itself) (from --upstream)`,
      ]);
      expect(message).not.toContain('SECRETX');
    }
  });

  it('takes a base whose path only mentions a card elsewhere', async () => {
    const { config } = await load(['--upstream', 'http://agent:8080/agent.json-proxy/']);
    expect(config.upstream.url).toBe('http://agent:8080/agent.json-proxy/');
  });
});
