import { describe, expect, it } from 'vitest';
import { startGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { startDemoAgent } from '../../../src/demo-agent/index.js';
import { createLogger } from '../../../src/log.js';
import { startCuttingProxy } from '../../support/cutting-proxy.js';

describe('an upstream that starts after the gateway', () => {
  it('/ready and the card come back within seconds, not after card-refresh-ms (60 s)', async () => {
    // The upstream's address is held by the test for the whole run: a proxy that drops every connection until the
    // agent is up, then passes them to it. A port left free for the agent to take later could be taken by another
    // file's socket first.
    const upstream = await startCuttingProxy();
    const gateway = await startGateway(
      defaultConfig({ port: 0, upstream: { url: upstream.url, 'card-refresh-ms': 60_000 } }),
      createLogger('silent'),
    );
    let agent: Awaited<ReturnType<typeof startDemoAgent>> | undefined;
    try {
      expect((await fetch(`${gateway.url}/ready`)).status).toBe(503);
      agent = await startDemoAgent();
      upstream.target = { host: '127.0.0.1', port: Number(new URL(agent.url).port) };
      const startedAt = Date.now();
      let status = 503;
      while (status !== 200 && Date.now() - startedAt < 15_000) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await fetch(`${gateway.url}/ready`)).status;
      }
      expect(status).toBe(200);
      // Retries back off 1 s, 2 s, 4 s, 8 s...: well inside the 60 s interval.
      expect(Date.now() - startedAt).toBeLessThan(15_000);
      const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as { name: string };
      expect(card.name).toBe('a2a-bridge-demo');
    } finally {
      await gateway.close();
      await agent?.close();
      await upstream.close();
    }
  }, 30_000);
});
