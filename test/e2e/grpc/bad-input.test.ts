/**
 * Bad input on the gRPC binding, sent as raw bytes by a plain grpc-js client: each gets a clear gRPC
 * status (never a crash, a hang or a stack trace) and the gateway keeps serving.
 */
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { SendMessageRequest, SendMessageResponse } from 'a2a-sdk-1';
import { A2AService } from 'a2a-sdk-1/server/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

let gateway: TestGateway;
let client: Client;

beforeAll(async () => {
  gateway = await startDemoGateway({ grpc: { port: 0 }, 'max-body-bytes': 2048 });
  client = new Client(gateway.grpcAddress!, credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await gateway?.close();
});

const identity = (bytes: Buffer): Buffer => bytes;

function rawCall(path: string, body: Buffer): Promise<{ error: ServiceError | null; response?: Buffer }> {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, identity, identity, body, metadata, { deadline: Date.now() + 5_000 }, (error, response) =>
      resolve({ error, ...(response ? { response } : {}) }),
    );
  });
}

const sendMessagePath = A2AService.sendMessage.path;
const encoded = (json: unknown): Buffer => A2AService.sendMessage.requestSerialize(SendMessageRequest.fromJSON(json));

describe('bad input on the gRPC binding', () => {
  it('bytes that are not the protobuf message: INVALID_ARGUMENT, not INTERNAL', async () => {
    const { error } = await rawCall(sendMessagePath, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(error?.details).toContain('not a valid protobuf message');
  });

  it('a string field that is not UTF-8 (proto3 strings must be): INVALID_ARGUMENT, and no turn runs', async () => {
    const body = encoded({ message: { messageId: 'm-utf8', role: 'ROLE_USER', parts: [{ text: 'hi QQ there' }] } });
    body.set([0xc3, 0x28], body.indexOf('QQ'));
    const turnsBefore = gateway.grpcLog().length;
    const { error, response } = await rawCall(sendMessagePath, body);
    expect(response).toBeUndefined();
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(error?.details).toMatch(/UTF-8/);
    expect(gateway.grpcLog().slice(turnsBefore)).toMatchObject([{ method: 'SendMessage', grpcStatus: status.INVALID_ARGUMENT }]);
    // Text in UTF-8 of more than one byte a character still goes through whole.
    const { error: none, response: answer } = await rawCall(
      sendMessagePath,
      encoded({ message: { messageId: 'm-zh', role: 'ROLE_USER', parts: [{ text: '你好 ✓' }] } }),
    );
    expect(none).toBeNull();
    expect(JSON.stringify(SendMessageResponse.toJSON(A2AService.sendMessage.responseDeserialize(answer!)))).toContain('你好 ✓');
  });

  it('a well-formed message without the required fields: INVALID_ARGUMENT naming the field', async () => {
    const { error } = await rawCall(sendMessagePath, encoded({}));
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(error?.details).toMatch(/^Invalid params: message/);
    const { error: emptyText } = await rawCall(sendMessagePath, encoded({ message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }));
    expect(emptyText).toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it("a message in the agent's role: INVALID_ARGUMENT naming message.role", async () => {
    const { error } = await rawCall(sendMessagePath, encoded({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'I approve' }] } }));
    expect(error).toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: "Invalid params: message.role: must be ROLE_USER: a caller's message is the user's",
    });
  });

  it('a method the service does not have: UNIMPLEMENTED', async () => {
    const { error } = await rawCall('/lf.a2a.v1.A2AService/DropAllTables', Buffer.alloc(0));
    expect(error).toMatchObject({ code: status.UNIMPLEMENTED });
  });

  it('a message above max-body-bytes: INVALID_ARGUMENT "Request payload too large", as on HTTP+JSON', async () => {
    const big = encoded({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(4096) }] } });
    const { error } = await rawCall(sendMessagePath, big);
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT, details: 'Request payload too large' });
  });

  it('metadata nested deeper than the JSON bindings take: INVALID_ARGUMENT before any turn, as -32600 is there', async () => {
    let metadata: Record<string, unknown> = { leaf: 'x' };
    for (let level = 0; level < 150; level++) metadata = { a: metadata };
    const { error } = await rawCall(
      sendMessagePath,
      encoded({ message: { messageId: 'deep', role: 'ROLE_USER', parts: [{ text: 'look deep' }], metadata } }),
    );
    expect(error).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(error?.details).toBe('Invalid request: JSON nested deeper than 100 levels');
  });

  it('after all that, a good call is answered', async () => {
    const { error, response } = await rawCall(
      sendMessagePath,
      encoded({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'still there?' }] } }),
    );
    expect(error).toBeNull();
    expect(A2AService.sendMessage.responseDeserialize(response!).payload?.$case).toBe('task');
  });
});
