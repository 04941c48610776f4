/**
 * A message whose `messageId` is empty, sent by the official a2a-js 1.x client over JSON-RPC, HTTP+JSON and gRPC
 * through the gateway. ProtoJSON leaves an empty string out, so the id arrives as no id at all: the caller is told
 * the id is required (as the agent itself tells it: "message.messageId is required"), not "expected string,
 * received undefined" of a field it did send.
 */
import type { Client } from 'a2a-sdk-1/client';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { connect, userMessage, wireError } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

describe('a message without a messageId, through the gateway', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startSdkGateway({ grpc: { port: 0 } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const clients: Record<string, () => Promise<Client>> = {
    JSONRPC: async () => (await connect(gateway.url, 'JSONRPC')).client,
    'HTTP+JSON': async () => (await connect(gateway.url, 'HTTP+JSON')).client,
    GRPC: () => connectGrpc(gateway.url),
  };

  it.each(Object.keys(clients))('over %s: INVALID_PARAMS saying the messageId is required', async (binding) => {
    const client = await clients[binding]!();
    const message = { ...userMessage('hello'), messageId: '' };
    const failure = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }).then(
      () => undefined,
      (error: unknown) => (isGrpcError(error) ? { reason: error.reason, message: error.message } : wireError(error)),
    );
    expect(failure).toMatchObject({ reason: 'INVALID_PARAMS', message: 'Invalid params: message.messageId: messageId is required' });
  });
});
