/**
 * A 1.0 stream the gateway's drain cuts (SIGTERM, `drain-timeout-ms` shorter than the turn), read through the
 * official a2a-js 1.x client on each binding. Once the stream named its task the turn goes on at the agent:
 * the error the client reports names the task and says to follow it (SubscribeToTask, GetTask), not "The gateway
 * is shutting down", which tells a caller that nothing reached the agent and to send it again, and would have the
 * turn run twice (docs/surfaces.md).
 */
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { SLOW_PREFIX } from '../../../src/demo-agent/index.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { connect, payloadRef, sendRequest, StreamReader, wireError, type TransportName, type WireError } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';
import { decodeErrorInfo, decodeStatus, isGrpcError } from 'a2a-sdk-1/errors/grpc';
import type { Client } from 'a2a-sdk-1/client';

const open: TestGateway[] = [];
afterEach(async () => {
  for (const gateway of open.splice(0)) await gateway.close();
});

type Binding = TransportName | 'GRPC';

async function clientOn(gateway: TestGateway, binding: Binding): Promise<Client> {
  return binding === 'GRPC' ? connectGrpc(gateway.url) : (await connect(gateway.url, binding)).client;
}

type ErrorInfo = { reason: string; domain: string; metadata?: Record<string, string> };

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * The ErrorInfo details of an error as the client hands them over: a JSON-RPC stream's error keeps the
 * envelope's `error.data` on its cause, a gRPC error the `grpc-status-details-bin` blob. The HTTP+JSON
 * client keeps only an A2A reason's metadata, so its details are read from the wire (restCutDetails).
 */
function errorInfosOf(error: unknown): ErrorInfo[] | undefined {
  if (isGrpcError(error)) {
    if (!error.statusDetailsBin) return undefined;
    return decodeStatus(error.statusDetailsBin)
      .details.filter((any) => any.typeUrl === ERROR_INFO_TYPE)
      .map((any) => decodeErrorInfo(any.value));
  }
  const data = (error as { cause?: { data?: unknown } }).cause?.data;
  return Array.isArray(data) ? (data as Array<{ '@type'?: string } & ErrorInfo>).filter((detail) => detail['@type'] === ERROR_INFO_TYPE) : undefined;
}

/** What the client reports of a slow turn's stream once the gateway's drain is over, and the task the stream named. */
async function cutStream(binding: Binding): Promise<{ taskId: string; failure: WireError & { grpcStatus?: number }; details?: ErrorInfo[] }> {
  const gateway = await startDemoGateway({ grpc: { port: 0 }, 'drain-timeout-ms': 200 });
  open.push(gateway);
  const client = await clientOn(gateway, binding);
  const stream = new StreamReader(client.sendMessageStream(sendRequest(`${SLOW_PREFIX} deploy the stack`)));
  const { taskId } = payloadRef(await stream.expectNext());
  const closed = gateway.close();
  try {
    await stream.rest();
  } catch (error) {
    await closed;
    const failure = isGrpcError(error) ? { message: error.message, grpcStatus: error.status } : wireError(error);
    return { taskId, failure, details: errorInfosOf(error) };
  }
  throw new Error('the stream ended without an error');
}

/** The same over HTTP+JSON, read from the wire: the task the stream named, and the error event's google.rpc.Status. */
async function restCutDetails(): Promise<{ taskId: string; error: { code: number; status: string; details: unknown[] } }> {
  const gateway = await startDemoGateway({ 'drain-timeout-ms': 200 });
  open.push(gateway);
  const response = await fetch(`${gateway.url}/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `${SLOW_PREFIX} deploy the stack` }] } }),
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!/^data: /m.test(text)) text += (await reader.read()).value ?? '';
  const first = JSON.parse(/^data: (.*)$/m.exec(text)![1]!) as { task?: { id: string }; statusUpdate?: { taskId: string } };
  const closed = gateway.close();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
  await closed;
  const errorFrame = /event: error\ndata: (.*)$/m.exec(text);
  if (!errorFrame) throw new Error(`the stream ended without an error event: ${text}`);
  return { taskId: first.task?.id ?? first.statusUpdate!.taskId, error: JSON.parse(errorFrame[1]!).error };
}

/** The gateway's ErrorInfo of a stream its drain cut: the task to follow, in metadata a client reads without parsing the words. */
const taskGoesOn = (taskId: string): ErrorInfo => ({ reason: 'STREAM_CUT_TASK_CONTINUES', domain: 'a2a-bridge', metadata: { taskId } });

describe('a 1.0 stream cut by the drain once its task is known', () => {
  it.each<Binding>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('%s: the client reads that the task goes on, and how to follow it', async (binding) => {
    const { taskId, failure, details } = await cutStream(binding);
    expect(failure.message).toContain(
      `This gateway is shutting down and ended the stream, but task ${taskId} goes on at the agent: follow it with SubscribeToTask or read it with GetTask; do not send the message again`,
    );
    expect(failure.message).not.toContain(GATEWAY_FAILURES.shuttingDown);
    // Not the status of a call that never reached the agent (503 / UNAVAILABLE), which invites the same call again.
    if (binding === 'JSONRPC') expect(failure.message).toMatch(/^SSE event contained an error: .*\(Code: -32603\)/);
    if (binding === 'HTTP+JSON') expect(failure.reason).toBe('INTERNAL_ERROR');
    if (binding === 'GRPC') expect(failure.grpcStatus).toBe(status.INTERNAL);
    // The task also as ErrorInfo, for a client that follows it without reading the words (HTTP+JSON's: below).
    if (binding !== 'HTTP+JSON') expect(details).toEqual([expect.objectContaining(taskGoesOn(taskId))]);
  });

  it("HTTP+JSON: the error event's google.rpc.Status carries the same ErrorInfo in its details", async () => {
    const { taskId, error } = await restCutDetails();
    expect(error).toMatchObject({ code: 500, status: 'INTERNAL' });
    expect(error.details).toEqual([{ '@type': ERROR_INFO_TYPE, ...taskGoesOn(taskId) }]);
  });
});

describe('a 1.0 SubscribeToTask stream cut by the drain', () => {
  it.each<Binding>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('%s: reads "shutting down", the status that invites subscribing again', async (binding) => {
    const gateway = await startDemoGateway({ grpc: { port: 0 }, 'drain-timeout-ms': 200 });
    open.push(gateway);
    const client = await clientOn(gateway, binding);
    const stream = new StreamReader(client.sendMessageStream(sendRequest(`${SLOW_PREFIX} deploy the stack`)));
    const subscription = new StreamReader(client.resubscribeTask({ tenant: '', id: payloadRef(await stream.expectNext()).taskId }));
    await subscription.expectNext();
    const closed = gateway.close();
    const failure = await subscription.rest().then(
      () => undefined,
      (error: unknown) => (isGrpcError(error) ? { message: error.message, grpcStatus: error.status, reason: undefined } : wireError(error)),
    );
    await stream.rest().catch(() => undefined);
    await closed;
    expect(failure?.message).toContain(GATEWAY_FAILURES.shuttingDown);
    expect(failure?.message).not.toContain('goes on at the agent');
    if (binding === 'GRPC') expect((failure as { grpcStatus?: number }).grpcStatus).toBe(status.UNAVAILABLE);
  });
});
