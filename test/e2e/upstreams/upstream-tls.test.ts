/**
 * An agent behind mutual TLS with a private CA: a real a2a-js 1.x server over HTTPS (and, in the
 * second case, its gRPC binding over TLS) that refuses any client without a certificate signed by
 * its CA. With `upstream.tls` the gateway trusts that CA and presents its own certificate; without it,
 * the caller gets a clear protocol error and the gateway stays up.
 */
import { readFile } from 'node:fs/promises';
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { makeCertificates, type Certificates } from '../../support/certificates.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { sdkReply, startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { artifactText, asTask, connect, sendRequest } from '../../support/sdk-v1-client.js';

let certificates: Certificates;
let mutualTls: { cert: Buffer; key: Buffer; ca: Buffer };
const running: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  certificates = await makeCertificates({ servers: ['agent'], clients: ['gateway'] });
  const [cert, key, ca] = await Promise.all(['agent.pem', 'agent.key', 'ca.pem'].map((name) => readFile(certificates.file(name))));
  mutualTls = { cert: cert!, key: key!, ca: ca! };
}, 60_000);
afterAll(async () => {
  for (const item of running.reverse()) await item.close();
  await certificates?.cleanup();
});

async function agentAndGateway(
  agentOptions: { grpcOnly?: boolean },
  tls: Record<string, string>,
): Promise<{ agent: RunningSdkV1Agent; gateway: TestGateway }> {
  const agent = await startSdkV1Agent({ ...agentOptions, mutualTls });
  running.push(agent);
  const gateway = await startTestGateway({ upstream: { url: agent.url, tls } });
  running.push(gateway);
  return { agent, gateway };
}

const clientTls = () => ({
  'ca-file': certificates.file('ca.pem'),
  'cert-file': certificates.file('gateway.pem'),
  'key-file': certificates.file('gateway.key'),
});

describe.each([
  { name: 'HTTPS (JSON-RPC)', agentOptions: {} },
  { name: 'gRPC over TLS', agentOptions: { grpcOnly: true } },
])('an agent behind mutual TLS, $name', ({ agentOptions }) => {
  it('with upstream.tls the gateway reaches it: the 1.0 client and the facade get the whole reply', async () => {
    const { agent, gateway } = await agentAndGateway(agentOptions, clientTls());
    expect(agent.url).toMatch(/^https:/);
    const { client } = await connect(gateway.url, 'JSONRPC');
    const task = asTask(await client.sendMessage(sendRequest('over mutual tls')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe(sdkReply('over mutual tls', 1).full);

    const facade = new A2AClient(gateway.url);
    const sent: any = await facade.sendMessage({
      message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'facade over mtls' }] },
    });
    expect(sent.error).toBeUndefined();
    expect(JSON.stringify(sent.result.artifacts)).toContain(sdkReply('facade over mtls', 1).full);
  });
});

describe('without the client certificate, or without the CA', () => {
  it.each([
    ['no client certificate', () => ({ 'ca-file': certificates.file('ca.pem') })],
    ['the public roots only', () => ({})],
  ])('%s: a clear JSON-RPC error, nothing of the TLS internals, and the gateway stays up', async (_name, tls) => {
    const { gateway } = await agentAndGateway({}, tls());
    const answer = async () =>
      (await (
        await fetch(`${gateway.url}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams('hi') }),
        })
      ).json()) as { error?: { code: number; message: string } };
    const first = await answer();
    expect(first.error?.code).toBe(-32603);
    expect(first.error?.message).toMatch(/unavailable|unreachable/i);
    expect(JSON.stringify(first)).not.toMatch(/certificate|ECONNRESET|EPROTO|\/tmp\//);
    expect((await fetch(`${gateway.url}/ready`)).status).toBe(503);
    expect((await answer()).error?.code).toBe(-32603);
  });
});

it('an unreadable upstream.tls file stops the start with its key named, not its path', async () => {
  const start = startGateway(
    defaultConfig({ port: 0, upstream: { url: 'https://127.0.0.1:9', tls: { 'ca-file': `${certificates.dir}/missing.pem` } } }),
    createLogger('silent'),
  );
  await expect(start).rejects.toThrow('upstream.tls.ca-file cannot be read (no such file)');
  await expect(start).rejects.not.toThrow(certificates.dir);
});

function sendParams(text: string) {
  return { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } };
}
