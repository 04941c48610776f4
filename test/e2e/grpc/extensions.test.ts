/**
 * A2A extensions over the gRPC binding: the caller's `a2a-extensions` metadata reaches the upstream,
 * and what the upstream activated comes back as `a2a-extensions` response metadata, on unary calls and
 * streams (read with grpc-js itself, since the SDK client does not expose response metadata).
 */
import { Metadata, credentials, makeClientConstructor, type Client } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AService, GRPC_METHODS, requestMessage } from '../../../src/protocol/grpc.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';

const TRACING = 'https://example.com/ext/tracing/v1';
const OTHER = 'https://example.com/ext/other/v1';

type Method = (...args: unknown[]) => any;
type Raw = Client & { sendMessage: Method; sendStreamingMessage: Method };

describe('extensions over gRPC', () => {
  let agent: RunningSdkV1Agent;
  let gateway: TestGateway;
  let client: Raw;
  beforeAll(async () => {
    agent = await startSdkV1Agent({ extensions: [{ uri: TRACING, description: 'traces' }] });
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    const Constructor = makeClientConstructor(A2AService, 'A2AService');
    client = new Constructor(gateway.grpcAddress!, credentials.createInsecure()) as unknown as Raw;
  });
  afterAll(async () => {
    client?.close();
    await gateway?.close();
    await agent?.close();
  });

  const metadata = (extensions: string): Metadata => {
    const md = new Metadata();
    md.set('a2a-version', '1.0');
    md.set('a2a-extensions', extensions);
    return md;
  };
  const send = requestMessage(GRPC_METHODS.sendMessage, {
    message: { messageId: `grpc-ext-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
  });

  it('unary: the activated extension (only that one) is echoed in the response metadata', async () => {
    const echoed = await new Promise<string[]>((resolve, reject) => {
      const call = client.sendMessage(send, metadata(`${TRACING}, ${OTHER}`), (error: Error | null) => error && reject(error));
      call.on('metadata', (md: Metadata) => resolve(md.get('a2a-extensions').map(String)));
    });
    expect(echoed).toEqual([TRACING]);
    expect(agent.extensionHeaders.at(-1)?.['a2a-extensions']).toBe(`${TRACING}, ${OTHER}`);
  });

  it('stream: echoed before the first event', async () => {
    const echoed = await new Promise<string[]>((resolve, reject) => {
      const call = client.sendStreamingMessage(send, metadata(TRACING));
      call.on('metadata', (md: Metadata) => resolve(md.get('a2a-extensions').map(String)));
      call.on('error', reject);
      call.on('data', () => undefined);
    });
    expect(echoed).toEqual([TRACING]);
  });

  it('nothing requested, nothing echoed', async () => {
    const md = new Metadata();
    md.set('a2a-version', '1.0');
    const echoed = await new Promise<string[]>((resolve, reject) => {
      const call = client.sendMessage(send, md, (error: Error | null) => (error ? reject(error) : resolve([])));
      call.on('metadata', (received: Metadata) => resolve(received.get('a2a-extensions').map(String)));
    });
    expect(echoed).toEqual([]);
  });
});
