/**
 * What a 1.0 SDK developer sees when iac-code refuses a call (its -32602 to a text sent to a task waiting on a
 * permission prompt, to a malformed answer, to a pipeline answer sent to another task of the context): each
 * binding's own error (JSON-RPC code, HTTP+JSON status with google.rpc.Status, gRPC status with A2A ErrorInfo),
 * the same reason and iac-code's own words on all three.
 */
import type { Client } from 'a2a-sdk-1/client';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, connect, permissionAnswer, rejectionOf, sendRequest, StreamReader, type Payload } from '../../support/sdk-v1-client.js';
import { connectGrpc } from './grpc-client.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
type Binding = (typeof BINDINGS)[number];

let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({
    permissionWait: 'parked',
    script: { before: ['Drafting. '], after: ['Wrote.'], artifact: { filename: 'main.tf' }, permission: true },
  });
  gateway = await startTestGateway({ upstream: { url: fake.url }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

const clientFor = async (binding: Binding): Promise<Client> =>
  binding === 'GRPC' ? connectGrpc(gateway.url) : (await connect(gateway.url, binding)).client;

/** The binding's own error code (JSON-RPC code, HTTP status, gRPC status), the ErrorInfo reason and the message. */
async function failureOf(stream: AsyncIterable<unknown>): Promise<{ code?: number; reason?: string; message: string }> {
  try {
    for await (const _ of stream) void _;
  } catch (error) {
    if (isGrpcError(error)) return { code: error.status, reason: error.reason, message: error.message };
    return rejectionOf(Promise.reject(error));
  }
  throw new Error('expected the call to fail');
}

const EXPECTED_CODE: Record<Binding, number> = { JSONRPC: -32602, 'HTTP+JSON': 400, GRPC: 3 };
/** UnsupportedOperationError as a2a-js 1.x maps it: -32004, 400, FAILED_PRECONDITION. */
const TERMINAL_CODE: Record<Binding, number> = { JSONRPC: -32004, 'HTTP+JSON': 400, GRPC: 9 };

async function waitingTask(client: Client) {
  const asked = asTask(await client.sendMessage(sendRequest('template: a VPC')));
  const input = (asked.metadata as { iac_code?: { input?: Record<string, string> } }).iac_code!.input!;
  return { asked, input };
}

describe.each(BINDINGS)('over %s', (binding) => {
  it("a text to a task waiting on permission fails INVALID_ARGUMENT with iac-code's words", async () => {
    const client = await clientFor(binding);
    const { asked } = await waitingTask(client);
    const failure = await failureOf(client.sendMessageStream(sendRequest('yes', { taskId: asked.id, contextId: asked.contextId })));
    expect(failure).toMatchObject({
      code: EXPECTED_CODE[binding],
      reason: 'INVALID_PARAMS',
      message: expect.stringContaining('Permission responses must contain exactly one'),
    });
  });

  it("an answer naming the wrong prompt fails INVALID_ARGUMENT with iac-code's words", async () => {
    const client = await clientFor(binding);
    const { asked, input } = await waitingTask(client);
    const stale = permissionAnswer({ ...input, inputId: 'not-the-prompt' }, 'allow_once', { taskId: asked.id, contextId: asked.contextId });
    const failure = await failureOf(client.sendMessageStream(stale));
    expect(failure).toMatchObject({
      code: EXPECTED_CODE[binding],
      reason: 'INVALID_PARAMS',
      message: expect.stringContaining('permission correlation does not match'),
    });
    // The prompt still waits, and the right answer still goes through.
    const reader = new StreamReader(
      client.sendMessageStream(permissionAnswer(input, 'allow_once', { taskId: asked.id, contextId: asked.contextId })),
    );
    const seen: Payload[] = await reader.rest();
    expect(seen.some((payload) => payload.$case === 'artifactUpdate')).toBe(true);
  });

  it('SubscribeToTask of a canceled task fails UNSUPPORTED_OPERATION', async () => {
    const client = await clientFor(binding);
    const { asked } = await waitingTask(client);
    await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined });
    const failure = await failureOf(client.resubscribeTask({ tenant: '', id: asked.id }));
    expect(failure).toMatchObject({
      code: TERMINAL_CODE[binding],
      reason: 'UNSUPPORTED_OPERATION',
      message: expect.stringContaining('terminal state'),
    });
  });
});

it("HTTP+JSON answers iac-code's refusal as a google.rpc.Status", async () => {
  const client = await clientFor('JSONRPC');
  const { asked } = await waitingTask(client);
  const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as {
    supportedInterfaces: Array<{ url: string; protocolBinding: string }>;
  };
  const rest = card.supportedInterfaces.find((entry) => entry.protocolBinding === 'HTTP+JSON')!.url;
  const response = await fetch(`${rest}/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      message: { messageId: 'm-1', role: 'ROLE_USER', taskId: asked.id, contextId: asked.contextId, parts: [{ text: 'yes' }] },
    }),
  });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: { code: number; status: string; message: string; details: Array<Record<string, unknown>> } };
  expect(body.error).toMatchObject({
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: expect.stringContaining('Permission responses must contain exactly one'),
  });
  expect(body.error.details).toContainEqual(
    expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'a2a-protocol.org' }),
  );
});
