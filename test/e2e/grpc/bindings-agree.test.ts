/**
 * "A 1.0 client can pick any of the three bindings from the gateway's card and get the same
 * behaviour": the official a2a-js 1.x client over JSON-RPC, HTTP+JSON and gRPC runs the same
 * conversation through one gateway, and sees the same tasks, streams and error reasons.
 */
import type { Client } from 'a2a-sdk-1/client';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import type { Task } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asTask, collect, connect, outline, rejectionOf, sendRequest, streamedArtifactText, textOf } from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';
import type { TestGateway } from '../../support/gateway.js';
import { connectGrpc } from './grpc-client.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

const taskShape = (task: Task) => ({
  state: task.status?.state,
  history: task.history.map((message) => ({ role: message.role, text: textOf(message) })),
  artifacts: task.artifacts.map((artifact) => ({
    name: artifact.name,
    text: artifact.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''),
  })),
});

/** The error reason a call fails with, whatever the binding reports it in. */
async function reasonOf(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    if (isGrpcError(error)) return error.reason;
    return (await rejectionOf(Promise.reject(error))).reason;
  }
  throw new Error('expected the call to fail');
}

async function conversation(client: Client) {
  const sent = asTask(await client.sendMessage(sendRequest('same words on every binding')));
  const followUp = asTask(await client.sendMessage(sendRequest('and a second turn', { contextId: sent.contextId })));
  const streamed = await collect(client.sendMessageStream(sendRequest('streamed on every binding')));
  const fetched = await client.getTask({ tenant: '', id: sent.id, historyLength: 1 });
  return {
    sent: taskShape(sent),
    followUp: taskShape(followUp),
    stream: { outline: streamed.map(outline), reply: streamedArtifactText(streamed) },
    fetched: taskShape(fetched),
    unknownTask: await reasonOf(client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })),
    finishedCancel: await reasonOf(client.cancelTask({ tenant: '', id: sent.id, metadata: undefined })),
  };
}

describe.each(UPSTREAMS)('JSON-RPC, HTTP+JSON and gRPC through the gateway in front of the $name', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGateway({ grpc: { port: 0 } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('see the same conversation', async () => {
    const seen: Record<string, unknown> = {};
    for (const binding of BINDINGS) {
      const client = binding === 'GRPC' ? await connectGrpc(gateway.url) : (await connect(gateway.url, binding)).client;
      expect(client.transport.protocolName).toBe(binding);
      seen[binding] = await conversation(client);
    }
    expect(seen['GRPC']).toEqual(seen['JSONRPC']);
    expect(seen['HTTP+JSON']).toEqual(seen['JSONRPC']);
    expect(seen['JSONRPC']).toMatchObject({ unknownTask: 'TASK_NOT_FOUND', finishedCancel: 'TASK_NOT_CANCELABLE' });
    const logged = new Set([...gateway.requestLog().map((line) => line.surface), ...gateway.grpcLog().map((line) => line.surface)]);
    for (const surface of ['jsonrpc', 'rest', 'grpc']) expect(logged.has(surface as never)).toBe(true);
  });
});
