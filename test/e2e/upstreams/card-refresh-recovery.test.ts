import { describe, expect, it } from 'vitest';
import { startGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { startDemoAgent } from '../../../src/demo-agent/index.js';
import { createLogger } from '../../../src/log.js';
import { freePort } from '../../support/free-port.js';

describe('an upstream that starts after the gateway', () => {
  it('/ready and the card come back within seconds, not after card-refresh-ms (60 s)', async () => {
    const port = await freePort();
    const gateway = await startGateway(
      defaultConfig({ port: 0, upstream: { url: `http://127.0.0.1:${port}`, 'card-refresh-ms': 60_000 } }),
      createLogger('silent'),
    );
    let agent: Awaited<ReturnType<typeof startDemoAgent>> | undefined;
    try {
      expect((await fetch(`${gateway.url}/ready`)).status).toBe(503);
      agent = await startDemoAgent({ port });
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
    }
  }, 30_000);
});
