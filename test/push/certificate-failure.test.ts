/**
 * A receiver whose certificate does not verify fails for good at once (dead-lettered, counted permanent),
 * instead of being retried until the attempts run out: the certificate will not verify next time either.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../src/push/dispatch.js';
import { newPushJob } from '../../src/push/queue/types.js';
import { makeCertificates, type Certificates } from '../support/certificates.js';

let certificates: Certificates;
const servers: Server[] = [];
beforeAll(async () => {
  certificates = await makeCertificates({ servers: ['server'] });
}, 30_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await certificates.cleanup();
});

/** An HTTPS receiver answering 200, with `name`'s certificate and key. */
async function receiverWith(cert: string, key: string): Promise<string> {
  const server = createServer({ cert: await readFile(certificates.file(cert)), key: await readFile(certificates.file(key)) }, (_req, res) =>
    res.end('ok'),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const attempt = (url: string) =>
  deliver(newPushJob({ eventId: 'task-1:1', taskId: 'task-1', configId: 'cfg', owner: 'alice', url, payload: '{}' }), {
    allowPrivate: true,
    timeoutMs: 5_000,
  });

describe('a receiver certificate that does not verify', () => {
  it('self-signed: permanent at once, and says why', async () => {
    const result = await attempt(await receiverWith('ca.pem', 'ca.key'));
    expect(result).toEqual({ outcome: 'permanent', error: 'certificate rejected (DEPTH_ZERO_SELF_SIGNED_CERT)' });
  });

  it('signed by a CA the gateway does not trust: permanent at once', async () => {
    const result = await attempt(await receiverWith('server.pem', 'server.key'));
    expect(result.outcome).toBe('permanent');
    expect(result.error).toMatch(/^certificate rejected \(/);
  });
});
