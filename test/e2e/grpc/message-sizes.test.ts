/**
 * Message sizes on the gRPC binding, as on the HTTP bindings: a request is taken up to `max-body-bytes` and
 * refused past it (RESOURCE_EXHAUSTED naming the limit, before any turn), and an answer is sent whole, as the HTTP bindings
 * send theirs, however large. The official SDK's gRPC client keeps grpc-js's 4 MiB receive
 * limit and offers no way to raise it: it is told RESOURCE_EXHAUSTED by its own channel (docs/grpc.md).
 */
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { SendMessageRequest, SendMessageResponse } from 'a2a-sdk-1';
import { A2AService } from 'a2a-sdk-1/server/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactText, sendRequest } from '../../support/sdk-v1-client.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { grpcFailureOf, grpcTransport, wire } from './grpc-client.js';

const MiB = 1024 * 1024;
/** grpc-js's default receive limit, a client's unless it raises it. */
const GRPC_DEFAULT_RECEIVE = 4 * MiB;

const identity = (bytes: Buffer): Buffer => bytes;

function rawCall(client: Client, body: Buffer): Promise<{ error: ServiceError | null; response?: Buffer }> {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  return new Promise((resolve) => {
    client.makeUnaryRequest(A2AService.sendMessage.path, identity, identity, body, metadata, { deadline: Date.now() + 30_000 }, (error, response) =>
      resolve({ error, ...(response ? { response } : {}) }),
    );
  });
}

let messages = 0;
const encodedSend = (text: string): Buffer =>
  A2AService.sendMessage.requestSerialize(
    SendMessageRequest.fromJSON({ message: { messageId: `size-${++messages}`, role: 'ROLE_USER', parts: [{ text }] } }),
  );

/** A SendMessage request of exactly `bytes` bytes of protobuf: the message's text grown or shrunk until it is. */
function sendOfSize(bytes: number): Buffer {
  let length = bytes;
  for (let tries = 0; tries < 10; tries++) {
    const body = encodedSend('x'.repeat(length));
    if (body.length === bytes) return body;
    length += bytes - body.length;
  }
  throw new Error(`no request of ${bytes} bytes`);
}

describe('a request is bounded by max-body-bytes', () => {
  const LIMIT = 64 * 1024;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    gateway = await startDemoGateway({ grpc: { port: 0 }, 'max-body-bytes': LIMIT });
    client = new Client(gateway.grpcAddress!, credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await gateway?.close();
  });

  it('one byte past the limit: RESOURCE_EXHAUSTED naming the size and the limit, no stack trace, no turn', async () => {
    const logged = gateway.grpcLog().length;
    const { error, response } = await rawCall(client, sendOfSize(LIMIT + 1));
    expect(response).toBeUndefined();
    expect(error?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(error?.details).toBe(`Received message larger than max (${LIMIT + 1} vs ${LIMIT})`);
    // Refused by grpc-js before the handler: no turn ran, so no call line either.
    expect(gateway.grpcLog().slice(logged)).toEqual([]);
  });

  it('a request of exactly the limit goes through', async () => {
    const { error, response } = await rawCall(client, sendOfSize(LIMIT));
    expect(error).toBeNull();
    const answer = SendMessageResponse.toJSON(A2AService.sendMessage.responseDeserialize(response!)) as { task?: { id: string } };
    expect(answer.task?.id).toEqual(expect.any(String));
  });
});

describe('an answer is not bounded, as on the HTTP bindings', () => {
  let gateway: TestGateway;
  let client: Client;
  // The demo agent's answer holds the text four times (the user's message, the streamed and the final echo in the
  // history, the artifact): 1.05 MiB of it is an answer just past grpc-js's 4 MiB, and no more (each turn of it costs
  // CPU in proportion on a loaded host).
  const text = 'x'.repeat(Math.ceil(1.05 * MiB));

  beforeAll(async () => {
    gateway = await startDemoGateway({ grpc: { port: 0 } });
    client = new Client(gateway.grpcAddress!, credentials.createInsecure(), { 'grpc.max_receive_message_length': 32 * MiB });
  });
  afterAll(async () => {
    client?.close();
    await gateway?.close();
  });

  it('an answer past 4 MiB reaches a gRPC client whose receive limit allows it', async () => {
    const { error, response } = await rawCall(client, encodedSend(text));
    expect(error).toBeNull();
    expect(response!.length).toBeGreaterThan(GRPC_DEFAULT_RECEIVE);
    const { payload } = A2AService.sendMessage.responseDeserialize(response!);
    if (payload?.$case !== 'task') throw new Error(`expected a task, got ${payload?.$case}`);
    expect(artifactText(payload.value)).toContain(text);
  });

  it("the official SDK's gRPC client refuses it itself: RESOURCE_EXHAUSTED at grpc-js's 4 MiB", async () => {
    const transport = await grpcTransport(gateway);
    const failure = await grpcFailureOf(transport.sendMessage(sendRequest(text), wire()));
    expect(failure.status).toBe(status.RESOURCE_EXHAUSTED);
    expect(failure.message).toMatch(new RegExp(`Received message larger than max \\(\\d+ vs ${GRPC_DEFAULT_RECEIVE}\\)`));
    // The gateway answered it: the limit that refused it is the client's.
    const line = gateway.grpcLog().at(-1);
    expect(line).toMatchObject({ method: 'SendMessage', grpcStatus: status.OK });
  });
});
