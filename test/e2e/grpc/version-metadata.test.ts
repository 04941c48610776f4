/**
 * A gRPC call without `a2a-version` is refused in the words of the binding it came over: a gRPC caller sends the
 * version as call metadata, so the message names metadata, where the HTTP bindings' own (same gateway) name the
 * header. The status (FAILED_PRECONDITION) is the same as for any unsupported version.
 */
import { Metadata, credentials, makeClientConstructor, status, type Client, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AService, GRPC_METHODS, requestMessage } from '../../../src/protocol/grpc.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

type Raw = Client & { getTask: (request: unknown, metadata: Metadata, done: (error: ServiceError | null) => void) => unknown };

let gateway: TestGateway;
let client: Raw;
beforeAll(async () => {
  gateway = await startDemoGateway({ grpc: { port: 0 } });
  const Constructor = makeClientConstructor(A2AService, 'A2AService');
  client = new Constructor(gateway.grpcAddress!, credentials.createInsecure()) as unknown as Raw;
});
afterAll(async () => {
  client?.close();
  await gateway?.close();
});

const getTaskFailure = (metadata: Metadata): Promise<ServiceError | null> =>
  new Promise((resolve) => client.getTask(requestMessage(GRPC_METHODS.getTask, { id: 'x' }), metadata, resolve));

describe('the A2A-Version a gRPC call lacks', () => {
  it('is named as metadata, with the status any unsupported version gets; the HTTP binding still names the header', async () => {
    const missing = await getTaskFailure(new Metadata());
    expect(missing?.code).toBe(status.FAILED_PRECONDITION);
    expect(missing?.details).toBe(
      "No A2A-Version metadata was sent with the call, which A2A reads as version '0.3'; this handler supports '1.0': send the metadata A2A-Version: 1.0.",
    );

    const unsupported = new Metadata();
    unsupported.set('a2a-version', '0.3');
    const wrong = await getTaskFailure(unsupported);
    expect(wrong?.code).toBe(status.FAILED_PRECONDITION);
    expect(wrong?.details).toBe("A2A version '0.3' is not supported by this handler. Expected version '1.0'.");

    const overHttp = await fetch(`${gateway.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    const answer = (await overHttp.json()) as { error: { message: string } };
    expect(answer.error.message).toBe(
      "No A2A-Version header was sent, which A2A reads as version '0.3'; this handler supports '1.0': send the header A2A-Version: 1.0.",
    );
  });
});
