import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { makeCertificates, type Certificates } from '../support/certificates.js';
import { CLOSED_PORT } from '../support/free-port.js';
import { cli } from '../support/run-cli.js';

let certificates: Certificates;
let plain: RunningGateway;
let tls: RunningGateway;
let failing: Server;
const portOf = (url: string) => new URL(url).port;

beforeAll(async () => {
  certificates = await makeCertificates({ servers: ['server'] });
  const quiet = createLogger('silent');
  plain = await startGateway(defaultConfig({ port: 0 }), quiet);
  tls = await startGateway(
    defaultConfig({ port: 0, tls: { 'cert-file': certificates.file('server.pem'), 'key-file': certificates.file('server.key') } }),
    quiet,
  );
  failing = createServer((_request, response) => response.writeHead(503).end('{"status":"draining"}'));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await plain?.close();
  await tls?.close();
  failing?.close();
  await certificates?.cleanup();
});

describe.concurrent('a2a-bridge health (the image HEALTHCHECK)', { timeout: 60_000 }, () => {
  it('exit 0 for a gateway that answers /health, from its configured port, on loopback when it binds every interface', async () => {
    const run = await cli(['health', '--port', portOf(plain.url)]);
    expect(run).toMatchObject({ code: 0, stdout: `healthy: http://127.0.0.1:${portOf(plain.url)}/health\n` });
    expect((await cli(['health'], { A2A_BRIDGE_PORT: portOf(plain.url), A2A_BRIDGE_HOST: '0.0.0.0' })).code).toBe(0);
  });

  it('a gateway serving TLS is healthy too, whether or not the probe is told about its TLS files', async () => {
    const told = await cli(['health', '--port', portOf(tls.url)], {
      A2A_BRIDGE_TLS__CERT_FILE: certificates.file('server.pem'),
      A2A_BRIDGE_TLS__KEY_FILE: certificates.file('server.key'),
    });
    expect(told).toMatchObject({ code: 0, stdout: `healthy: https://127.0.0.1:${portOf(tls.url)}/health\n` });
    // The files set only in the config file `serve` reads: found by trying https after http.
    const untold = await cli(['health', '--port', portOf(tls.url)]);
    expect(untold).toMatchObject({ code: 0, stdout: `healthy: https://127.0.0.1:${portOf(tls.url)}/health\n` });
  });

  it('exit 1 when something else answers, 3 when nothing does, with one line saying so', async () => {
    const port = String((failing.address() as AddressInfo).port);
    const other = await cli(['health', '--port', port]);
    expect(other).toMatchObject({ code: 1, stderr: `a2a-bridge: http://127.0.0.1:${port}/health answered HTTP 503\n` });
    const nobody = String(CLOSED_PORT);
    const none = await cli(['health', '--port', nobody]);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(new RegExp(`^a2a-bridge: no gateway answers on port ${nobody} of 127\\.0\\.0\\.1: .*ECONNREFUSED.*\\n$`));
  });
});
