import { copyFile, readFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import {
  Metadata,
  credentials,
  makeClientConstructor,
  status,
  type ChannelCredentials,
  type Client as GrpcClient,
  type ServiceError,
} from '@grpc/grpc-js';
import { A2AClient } from 'a2a-sdk-025/client';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { A2AService, GRPC_METHODS, requestMessage } from '../../../src/protocol/grpc.js';
import { makeCertificates, type Certificates } from '../../support/certificates.js';
import { cli, stderrLines } from '../../support/run-cli.js';

let certificates: Certificates;
const file = (name: string) => certificates.file(name);

/** The CN of the certificate a fresh connection is shown. */
function servedName(port: number, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    // h2 offered too: the gRPC port accepts only HTTP/2 connections.
    const socket = connect({ host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      const cn = socket.getPeerCertificate().subject?.CN;
      socket.end();
      resolve(String(cn));
    });
    socket.once('error', reject);
  });
}

let ca: Buffer;
let gateway: RunningGateway;
let previousDispatcher: Dispatcher;
beforeAll(async () => {
  certificates = await makeCertificates({ servers: ['first', 'second'] });
  await copyFile(file('first.pem'), file('server.pem'));
  await copyFile(file('first.key'), file('server.key'));
  ca = await readFile(file('ca.pem'));
  gateway = await startGateway(
    defaultConfig({
      port: 0,
      tls: { 'cert-file': file('server.pem'), 'key-file': file('server.key') },
      bailian: { 'api-key': 'bl-key' },
      grpc: { port: 0 },
    }),
    createLogger('silent'),
    { tlsReloadMs: 50 },
  );
  // The official client uses the global fetch: make it trust the test CA.
  previousDispatcher = getGlobalDispatcher();
  setGlobalDispatcher(new Agent({ connect: { ca } }));
}, 60_000);
afterAll(async () => {
  setGlobalDispatcher(previousDispatcher);
  await gateway?.close();
  await certificates?.cleanup();
});

describe('native TLS', { timeout: 60_000 }, () => {
  it('serves https on the same port; the facade card advertises https without public-url', async () => {
    expect(gateway.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const card = (await (await fetch(`${gateway.url}/.well-known/agent.json`)).json()) as { url: string };
    expect(card.url).toBe(gateway.url);
  });

  it('the official 0.2.5 client sends and streams over https', async () => {
    const client = new A2AClient(gateway.url);
    // The client sends no X-API-KEY of its own: give it one the way Bailian would.
    setGlobalDispatcher(
      new Agent({ connect: { ca } }).compose(
        (dispatch) => (opts, handler) =>
          dispatch({ ...opts, headers: { ...(opts.headers as Record<string, string>), 'x-api-key': 'bl-key' } }, handler),
      ),
    );
    try {
      const sent: any = await client.sendMessage({
        message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'over tls' }] },
      });
      expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      const events: any[] = [];
      for await (const event of client.sendMessageStream({
        message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'stream tls' }] },
      }))
        events.push(event);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    } finally {
      setGlobalDispatcher(new Agent({ connect: { ca } }));
    }
  });

  it('a Bailian-behaving client (the linter: X-API-KEY, url + /stream) passes every rule over https', async () => {
    const lint = await cli(['lint', gateway.url, '--api-key', 'bl-key'], { NODE_EXTRA_CA_CERTS: file('ca.pem') });
    expect(lint.stdout).toMatch(/^PASS {2}url-https /m);
    expect(lint.stdout).toMatch(/^PASS {2}stream-text /m);
    expect(lint.stdout).toMatch(/^PASS {2}api-key-enforced /m);
    expect(lint.code).toBe(0);
  });

  it('the gRPC port serves TLS with the same certificate: a client trusting the CA is answered, a plaintext one is not', async () => {
    const grpcPort = Number(gateway.grpcAddress!.split(':').pop());
    const Constructor = makeClientConstructor(A2AService, 'A2AService');
    const getTask = (creds: ChannelCredentials) =>
      new Promise<{ code: number; details: string }>((resolve) => {
        const client = new Constructor(`localhost:${grpcPort}`, creds) as unknown as GrpcClient & {
          getTask: (request: unknown, metadata: Metadata, options: object, callback: (error: ServiceError | null) => void) => void;
        };
        const metadata = new Metadata();
        metadata.set('a2a-version', '1.0');
        const request = requestMessage(GRPC_METHODS.getTask, { id: 'no-such-task-over-tls' });
        client.getTask(request, metadata, { deadline: Date.now() + 5_000 }, (error) => {
          client.close();
          resolve({ code: error?.code ?? status.OK, details: error?.details ?? '' });
        });
      });
    expect((await getTask(credentials.createSsl(ca))).code).toBe(status.NOT_FOUND);
    expect((await getTask(credentials.createInsecure())).code).toBe(status.UNAVAILABLE);
    expect(await servedName(grpcPort, ca)).toBe('first');
  });

  it('a renewal half done (the new key renamed in, its certificate not yet) keeps the previous pair on both ports', async () => {
    const ports = [Number(new URL(gateway.url).port), Number(gateway.grpcAddress!.split(':').pop())];
    const { rename } = await import('node:fs/promises');
    await copyFile(file('second.key'), file('server.key.new'));
    await rename(file('server.key.new'), file('server.key'));
    try {
      // Many times the 50 ms the files are read at: each port has read the mismatched pair by now.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const port of ports) expect(await servedName(port, ca)).toBe('first');
    } finally {
      await copyFile(file('first.key'), file('server.key.new'));
      await rename(file('server.key.new'), file('server.key'));
    }
  });

  it('a certificate swapped on disk is served to new connections without a restart', async () => {
    const port = Number(new URL(gateway.url).port);
    expect(await servedName(port, ca)).toBe('first');
    // Renewal the way ACME clients do it: new files written next to the old ones, then renamed over them.
    await copyFile(file('second.key'), file('server.key.new'));
    await copyFile(file('second.pem'), file('server.pem.new'));
    const { rename } = await import('node:fs/promises');
    await rename(file('server.key.new'), file('server.key'));
    await rename(file('server.pem.new'), file('server.pem'));
    let served = 'first';
    for (let i = 0; i < 100 && served !== 'second'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      served = await servedName(port, ca);
    }
    expect(served).toBe('second');
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    // The gRPC port watches the same files.
    const grpcPort = Number(gateway.grpcAddress!.split(':').pop());
    let grpcServed = await servedName(grpcPort, ca);
    for (let i = 0; i < 100 && grpcServed !== 'second'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      grpcServed = await servedName(grpcPort, ca);
    }
    expect(grpcServed).toBe('second');
  });
});

describe('TLS start-up errors', { timeout: 60_000 }, () => {
  it('a missing or mismatched pair: exit 2, one line naming the key, no path', async () => {
    const missing = await cli(['serve', '--port', '0'], { A2A_BRIDGE_TLS__CERT_FILE: file('nope.pem'), A2A_BRIDGE_TLS__KEY_FILE: file('first.key') });
    expect(missing.code).toBe(2);
    expect(stderrLines(missing)).toEqual(['a2a-bridge: cannot start: tls.cert-file cannot be read (no such file)']);
    const mismatched = await cli(['serve', '--port', '0'], {
      A2A_BRIDGE_TLS__CERT_FILE: file('first.pem'),
      A2A_BRIDGE_TLS__KEY_FILE: file('second.key'),
    });
    expect(mismatched.code).toBe(2);
    expect(stderrLines(mismatched)[0]).toMatch(
      /^a2a-bridge: cannot start: tls\.cert-file and tls\.key-file are not a usable PEM certificate and key/,
    );
    const half = await cli(['check-config'], { A2A_BRIDGE_TLS__CERT_FILE: file('first.pem') });
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/tls: tls\.cert-file and tls\.key-file go together/);
  });
});
