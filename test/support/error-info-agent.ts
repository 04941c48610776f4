/**
 * A hand-written 1.0 agent that answers every call with one scripted error carrying google.rpc ErrorInfo
 * details, on the binding its card names: JSON-RPC (`error.data`), HTTP+JSON (a google.rpc.Status body's
 * `details`) or gRPC (`grpc-status-details-bin`, through fake-grpc-agent.ts). What the SDK agents cannot be
 * made to send: an ErrorInfo under the agent's own domain, next to or instead of A2A's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metadata, status } from '@grpc/grpc-js';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { GRPC_STATUS_DETAILS_BIN } from 'a2a-sdk-1/errors/grpc';
import { startFakeGrpcAgent } from '../e2e/grpc/fake-grpc-agent.js';
import { jsonRpcAgentCard, readJsonBody } from './json-rpc-agent.js';

export const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

export interface ErrorInfoJson {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/** One error as each binding says it. */
export interface ScriptedError {
  code: number;
  httpStatus: number;
  grpcStatus: keyof typeof status;
  message: string;
  infos: ErrorInfoJson[];
}

export type AgentBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface ErrorInfoAgent {
  url: string;
  /** The error every call is answered with from now on. */
  fail(error: ScriptedError): void;
  close(): Promise<void>;
}

const details = (error: ScriptedError): unknown[] => error.infos.map((info) => ({ '@type': ERROR_INFO, ...info }));

/** google.rpc.Status with the infos as ErrorInfo details, protobuf-encoded (status.proto, any.proto, error_details.proto). */
function statusDetailsBin(code: number, error: ScriptedError): Buffer {
  const writer = new BinaryWriter().tag(1, WireType.Varint).int32(code).tag(2, WireType.LengthDelimited).string(error.message);
  for (const info of error.infos) {
    const encoded = new BinaryWriter().tag(1, WireType.LengthDelimited).string(info.reason).tag(2, WireType.LengthDelimited).string(info.domain);
    for (const [key, value] of Object.entries(info.metadata)) {
      encoded
        .tag(3, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .string(key)
        .tag(2, WireType.LengthDelimited)
        .string(value)
        .join();
    }
    writer
      .tag(3, WireType.LengthDelimited)
      .fork()
      .tag(1, WireType.LengthDelimited)
      .string(ERROR_INFO)
      .tag(2, WireType.LengthDelimited)
      .bytes(encoded.finish())
      .join();
  }
  return Buffer.from(writer.finish());
}

async function startGrpcErrorAgent(): Promise<ErrorInfoAgent> {
  const agent = await startFakeGrpcAgent();
  return {
    url: agent.url,
    fail(error) {
      const code = status[error.grpcStatus];
      const metadata = new Metadata();
      metadata.set(GRPC_STATUS_DETAILS_BIN, statusDetailsBin(code, error));
      agent.behave = { kind: 'fail', code, details: error.message, metadata };
    },
    close: () => agent.close(),
  };
}

/** JSON-RPC and HTTP+JSON: the card at `/.well-known/agent-card.json`, every other request answered with the error. */
async function startHttpErrorAgent(binding: 'JSONRPC' | 'HTTP+JSON'): Promise<ErrorInfoAgent> {
  let url = '';
  let error: ScriptedError = { code: -32603, httpStatus: 500, grpcStatus: 'INTERNAL', message: 'not scripted', infos: [] };
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
        const card = jsonRpcAgentCard(url, {
          name: 'error-info',
          description: 'fails with ErrorInfo',
          skill: { id: 's', name: 's', description: 'd' },
        });
        const interfaces = [{ url, protocolBinding: binding, protocolVersion: '1.0' }];
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...(card as object), supportedInterfaces: interfaces }));
        return;
      }
      if (binding === 'JSONRPC') {
        const rpc = await readJsonBody(req);
        const body = { jsonrpc: '2.0', id: rpc.id, error: { code: error.code, message: error.message, data: details(error) } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        return;
      }
      const body = { error: { code: error.httpStatus, status: error.grpcStatus, message: error.message, details: details(error) } };
      res.writeHead(error.httpStatus, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    fail: (next) => (error = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function startErrorInfoAgent(binding: AgentBinding): Promise<ErrorInfoAgent> {
  return binding === 'GRPC' ? startGrpcErrorAgent() : startHttpErrorAgent(binding);
}
