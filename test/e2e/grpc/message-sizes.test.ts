/**
 * Message sizes on the gRPC binding, as on the HTTP bindings: a request is taken up to `max-body-bytes` and
 * refused past it as they refuse it (INVALID_ARGUMENT "Request payload too large", before any turn, with a call line
 * naming -32600), and an answer is sent whole, as the HTTP bindings send theirs, however large. The official SDK's gRPC client keeps grpc-js's 4 MiB receive
 * limit and offers no way to raise it: it is told RESOURCE_EXHAUSTED by its own channel (docs/grpc.md).
 */
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { SendMessageRequest, SendMessageResponse } from 'a2a-sdk-1';
import { A2AService } from 'a2a-sdk-1/server/grpc';
import { gzipSync } from 'node:zlib';
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

/** A SendStreamingMessage of `body`: the status it ended with and how many events came first. */
function rawStream(client: Client, body: Buffer): Promise<{ error?: ServiceError; events: number }> {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  const call = client.makeServerStreamRequest(A2AService.sendStreamingMessage.path, identity, identity, body, metadata, {
    deadline: Date.now() + 30_000,
  });
  let events = 0;
  call.on('data', () => (events += 1));
  return new Promise((resolve) => {
    call.on('error', (error: ServiceError) => resolve({ error, events }));
    call.on('end', () => resolve({ events }));
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

  /** How many tasks the gateway holds: a turn that ran would add one. */
  const tasksHeld = async (): Promise<number> => {
    const { response } = await new Promise<{ response?: Buffer }>((resolve) => {
      const metadata = new Metadata();
      metadata.set('a2a-version', '1.0');
      client.makeUnaryRequest(A2AService.listTasks.path, identity, identity, Buffer.alloc(0), metadata, (_error, answer) =>
        resolve(answer ? { response: answer } : {}),
      );
    });
    return A2AService.listTasks.responseDeserialize(response!).tasks.length;
  };

  it('one byte past the limit: INVALID_ARGUMENT "Request payload too large" as on HTTP+JSON, no turn, and a call line saying so', async () => {
    const tasks = await tasksHeld();
    const logged = gateway.grpcLog().length;
    const { error, response } = await rawCall(client, sendOfSize(LIMIT + 1));
    expect(response).toBeUndefined();
    expect({ code: error?.code, details: error?.details }).toEqual({ code: status.INVALID_ARGUMENT, details: 'Request payload too large' });
    const lines = gateway.grpcLog().slice(logged);
    expect(lines).toMatchObject([
      { level: 30, msg: 'grpc call', surface: 'grpc', method: 'SendMessage', grpcStatus: status.INVALID_ARGUMENT, errorCode: -32600 },
    ]);
    // Refused before its credentials were checked or any task named: a line without a client or task.
    expect(lines[0]).not.toHaveProperty('client');
    expect(lines[0]).not.toHaveProperty('taskId');
    expect(await tasksHeld()).toBe(tasks);
  });

  it('far past the limit, and on a stream: refused alike (grpc-js reads only the size before refusing), each with its line', async () => {
    const logged = gateway.grpcLog().length;
    const unary = await rawCall(client, sendOfSize(LIMIT * 16));
    const stream = await rawStream(client, sendOfSize(LIMIT + 1));
    expect(unary.error?.code).toBe(status.INVALID_ARGUMENT);
    expect(stream).toMatchObject({ error: { code: status.INVALID_ARGUMENT, details: 'Request payload too large' }, events: 0 });
    expect(gateway.grpcLog().slice(logged)).toMatchObject([
      { method: 'SendMessage', grpcStatus: status.INVALID_ARGUMENT, errorCode: -32600 },
      { method: 'SendStreamingMessage', grpcStatus: status.INVALID_ARGUMENT, errorCode: -32600 },
    ]);
  });

  it('a compressed request within the limit that decompresses past it: refused alike', async () => {
    const gzip = new Client(gateway.grpcAddress!, credentials.createInsecure(), { 'grpc.default_compression_algorithm': 2 });
    try {
      const body = sendOfSize(LIMIT * 4);
      expect(gzipSync(body).length).toBeLessThan(LIMIT);
      const logged = gateway.grpcLog().length;
      const { error } = await rawCall(gzip, body);
      expect({ code: error?.code, details: error?.details }).toEqual({ code: status.INVALID_ARGUMENT, details: 'Request payload too large' });
      expect(gateway.grpcLog().slice(logged)).toMatchObject([{ method: 'SendMessage', grpcStatus: status.INVALID_ARGUMENT, errorCode: -32600 }]);
    } finally {
      gzip.close();
    }
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
