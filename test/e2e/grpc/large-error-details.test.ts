/**
 * An upstream error too big for gRPC trailers, read by a plain grpc-js client. The agent (JSON-RPC) fails
 * with a long Chinese message and google.rpc ErrorInfo filled to what the gateway takes from an agent
 * (upstream-errors.ts: A2A's metadata, four ErrorInfo of its own, twenty entries each, values of 1,000
 * characters). Relayed whole, that was some 300 KB of `grpc-status-details-bin`: past 64 KB of trailers a
 * grpc-js client got no answer at all (it waited out its deadline), and past 8 KiB gRPC's C-core clients
 * (Python, C++) refuse the trailers. The caller gets the error's status, its cut message and a decodable
 * google.rpc.Status whose ErrorInfo comes first (A2A's reason, then the agent's), all within 7 KiB. The
 * tests share one client: a connection that got trailers past 64 KB answered no later call either.
 */
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { SendMessageRequest } from 'a2a-sdk-1';
import { GRPC_STATUS_DETAILS_BIN, decodeErrorInfo, decodeStatus } from 'a2a-sdk-1/errors/grpc';
import { A2AService } from 'a2a-sdk-1/server/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErrorInfoAgent, type ErrorInfoAgent, type ErrorInfoJson, type ScriptedError } from '../../support/error-info-agent.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

let agent: ErrorInfoAgent;
let gateway: TestGateway;
let client: Client;

beforeAll(async () => {
  agent = await startErrorInfoAgent('JSONRPC');
  gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
  client = new Client(gateway.grpcAddress!, credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await gateway?.close();
  await agent?.close();
});

const identity = (bytes: Buffer): Buffer => bytes;

/** SendMessage as raw bytes; what the client reads of the failure. */
function failedSend(): Promise<ServiceError> {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  const body = A2AService.sendMessage.requestSerialize(
    SendMessageRequest.fromJSON({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'deploy' }] } }),
  );
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(A2AService.sendMessage.path, identity, identity, body, metadata, { deadline: Date.now() + 5_000 }, (error) =>
      error ? resolve(error) : reject(new Error('expected the call to fail')),
    );
  });
}

const statusBin = (error: ServiceError): Buffer => error.metadata.get(GRPC_STATUS_DETAILS_BIN)[0] as Buffer;

function infosOf(error: ServiceError): ErrorInfoJson[] {
  return decodeStatus(statusBin(error)).details.map((any) => {
    expect(any.typeUrl).toBe('type.googleapis.com/google.rpc.ErrorInfo');
    return decodeErrorInfo(any.value);
  });
}

/** The trailers' size as HTTP/2 counts a header list (RFC 7541: name + value + 32 each), as gRPC's C-core checks it. */
function trailerBytes(error: ServiceError): number {
  const entries: Array<[string, string]> = [
    ['grpc-status', String(error.code)],
    ['grpc-message', encodeURI(error.details)],
    [GRPC_STATUS_DETAILS_BIN, statusBin(error).toString('base64')],
  ];
  return entries.reduce((sum, [name, value]) => sum + name.length + value.length + 32, 0);
}

const LONG_VALUE = '资源创建失败：'.repeat(200);
const twentyEntries = (prefix: string): Record<string, string> =>
  Object.fromEntries(Array.from({ length: 20 }, (_, at) => [`${prefix}${at}`, `${at}:${LONG_VALUE}`]));

/** An A2A error (UnsupportedOperation) with every part as large as the gateway takes it from an agent. */
const OVERSIZED: ScriptedError = {
  code: -32004,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  message: `部署失败：${'资源创建失败😀'.repeat(300)}`,
  infos: [
    { reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: twentyEntries('stack') },
    ...['QUOTA_EXCEEDED', 'REGION_FULL', 'PLAN_LIMIT', 'RATE_LIMITED'].map((reason) => ({
      reason,
      domain: 'cloud.example.com',
      metadata: twentyEntries(reason.toLowerCase()),
    })),
  ],
};

/** Twice what C-core clients take (8 KiB) yet far under what grpc-js reads: every other binding relays it whole. */
const PAST_C_CORE: ScriptedError = {
  ...OVERSIZED,
  message: 'Uploads are off for this plan',
  infos: [
    { reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: { feature: LONG_VALUE } },
    { reason: 'UPLOADS_DISABLED', domain: 'files.example.com', metadata: { plan: LONG_VALUE, quota: LONG_VALUE } },
  ],
};

describe('an upstream error too large for the gRPC trailers', () => {
  it('reaches a grpc-js client with its status, its message cut to 1,500 bytes and decodable ErrorInfo, A2A reason first, within 7 KiB of trailers', async () => {
    agent.fail(OVERSIZED);
    const error = await failedSend();
    expect(error.code).toBe(status.FAILED_PRECONDITION);
    expect(Buffer.byteLength(error.details)).toBeLessThanOrEqual(1_500);
    expect(error.details.endsWith('...')).toBe(true);
    expect(OVERSIZED.message.startsWith(error.details.slice(0, -3))).toBe(true);
    expect(decodeStatus(statusBin(error))).toMatchObject({ code: status.FAILED_PRECONDITION, message: error.details });
    expect(statusBin(error).length).toBeLessThanOrEqual(4_096);
    expect(trailerBytes(error)).toBeLessThanOrEqual(7 * 1024);

    const infos = infosOf(error);
    expect(infos[0]).toMatchObject({ reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org' });
    for (const info of infos) {
      const sent = OVERSIZED.infos.find((candidate) => candidate.reason === info.reason);
      expect(info.domain).toBe(sent?.domain);
      for (const [key, value] of Object.entries(info.metadata)) {
        expect(Buffer.byteLength(value)).toBeLessThanOrEqual(256);
        expect(value).not.toMatch(/\p{Cs}/u);
        expect(sent?.metadata[key]?.startsWith(value.replace(/\.\.\.$/, ''))).toBe(true);
      }
    }
  });

  it('stays within 7 KiB of trailers when it is past what C-core clients take but grpc-js could read it', async () => {
    agent.fail(PAST_C_CORE);
    const error = await failedSend();
    expect(error).toMatchObject({ code: status.FAILED_PRECONDITION, details: 'Uploads are off for this plan' });
    expect(trailerBytes(error)).toBeLessThanOrEqual(7 * 1024);
    const infos = infosOf(error);
    expect(infos.map(({ reason, domain }) => ({ reason, domain }))).toEqual([
      { reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org' },
      { reason: 'UPLOADS_DISABLED', domain: 'files.example.com' },
    ]);
    expect(infos[1]?.metadata.plan?.endsWith('...')).toBe(true);
  });

  it('leaves a small error as the agent gave it, on the connection that was answered the oversized ones', async () => {
    const small: ScriptedError = {
      ...OVERSIZED,
      message: 'Uploads are off for this plan',
      infos: [
        { reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: { feature: 'uploads', note: '上传已关闭😀' } },
        { reason: 'UPLOADS_DISABLED', domain: 'files.example.com', metadata: { plan: 'free' } },
      ],
    };
    agent.fail(small);
    const error = await failedSend();
    expect(error).toMatchObject({ code: status.FAILED_PRECONDITION, details: 'Uploads are off for this plan' });
    expect(decodeStatus(statusBin(error))).toMatchObject({ code: status.FAILED_PRECONDITION, message: 'Uploads are off for this plan' });
    expect(infosOf(error)).toEqual(small.infos);
  });
});
