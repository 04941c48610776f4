import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { createUpstreamPool } from '../../src/upstream/http.js';

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

/** An agent's HTTP server that keeps idle connections `keepAliveMs` and counts the connections it was given. */
async function countingAgent(keepAliveMs: number): Promise<{ url: string; connections(): number }> {
  let connections = 0;
  const server: Server = createServer((_, res) => res.end('{}'));
  server.keepAliveTimeout = keepAliveMs;
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  open.push(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, connections: () => connections };
}

/** Two calls through one pool, `pauseMs` apart; resolves with how many connections the agent was given. */
async function twoCallsApart(config: object, agentKeepAliveMs: number, pauseMs: number): Promise<number> {
  const agent = await countingAgent(agentKeepAliveMs);
  const pool = createUpstreamPool(UpstreamConfig.parse(config));
  open.push(() => pool.close());
  for (const pause of [0, pauseMs]) {
    await sleep(pause);
    const { body } = await request(agent.url, { dispatcher: pool });
    await body.text();
  }
  return agent.connections();
}

describe('upstream.keep-alive-ms', () => {
  it('is 4 s by default and at least 1 ms', () => {
    expect(UpstreamConfig.parse({})['keep-alive-ms']).toBe(4_000);
    expect(() => UpstreamConfig.parse({ 'keep-alive-ms': 0 })).toThrow();
  });

  it('an idle connection is reused within the bound', async () => {
    // The agent keeps its connections a minute and says so (Keep-Alive: timeout=60): the gateway's bound decides.
    expect(await twoCallsApart({}, 60_000, 600)).toBe(1);
  });

  it('past the bound the next call opens a connection of its own, even when the agent names a longer keep-alive', async () => {
    expect(await twoCallsApart({ 'keep-alive-ms': 200 }, 60_000, 600)).toBe(2);
  });
});
