/**
 * A metrics port that cannot be had stops the start with words naming `metrics.port`, the setting to
 * change, never the main port's `--port`.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { createObservability } from '../../src/observability/index.js';
import { createGatewayMetrics } from '../../src/observability/metrics.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A port this test holds; `keep: false` lets it go again (free, unless another process takes it meanwhile). */
async function localPort(keep: boolean): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  if (keep) servers.push(server);
  else await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('metrics.port at start', () => {
  it('the same as port: the start stops naming both, before either is listened on', async () => {
    const port = await localPort(false);
    const config = defaultConfig({ port, metrics: { port } });
    const started = startGateway(config, createLogger('silent'));
    await expect(started).rejects.toThrow(`metrics.port ${port} is the same as port`);
    await expect(started).rejects.not.toThrow('--port');
  });

  it('taken by the time it is listened on: the error names metrics.port', async () => {
    const taken = await localPort(true);
    const observability = createObservability(defaultConfig({ port: 0, metrics: { port: taken } }), {
      metrics: createGatewayMetrics({ defaultMetrics: false }),
    });
    await expect(observability.listen('127.0.0.1')).rejects.toThrow(
      `port ${taken} on 127.0.0.1 is already in use (stop the other process or pick another metrics.port)`,
    );
  });
});
