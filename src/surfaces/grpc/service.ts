import { Metadata, status, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema.js';
import type { AgentPort } from '../../core/agent-port.js';
import { toA2AError } from '../../model/index.js';
import { A2AService, GRPC_METHODS, requestJson, responseMessage, type GrpcMethod, type GrpcMethodName } from '../../protocol/grpc.js';
import { prepareCall, type OperationEnv } from '../v1/operations.js';
import { openGrpcCall, RejectedCall, type ServerCall } from './call.js';
import { decodedRequest } from './definition.js';
import { toGrpcStatus, type GrpcErrorStatus } from './status.js';

export interface GrpcSurfaceDeps {
  port: AgentPort;
  config: GatewayConfig;
  logger: Logger;
  /** The gateway's public HTTP base URL (the extended card's JSON-RPC and HTTP+JSON interfaces point there). */
  baseUrl(): string;
  /** Aborted (reason: the error to report) when the gateway shuts down. */
  shutdown?: AbortSignal;
}

/** The upstream's activated extensions, as `a2a-extensions` response metadata (sent once, before the first message). */
function echoExtensions(call: ServerCall, opened: ReturnType<typeof openGrpcCall>): void {
  const uris = opened.activated();
  if (uris.length === 0) return;
  const metadata = new Metadata();
  metadata.set('a2a-extensions', uris.join(', '));
  call.sendMetadata(metadata);
}

const statusOf = (error: unknown): GrpcErrorStatus => (error instanceof RejectedCall ? error.status : toGrpcStatus(error));

/** Waits until a stream that reported backpressure may be written again, or the call ends. */
function drained(call: ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      call.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    call.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The `lf.a2a.v1.A2AService` implementation: each method decodes its request to ProtoJSON, runs the
 * 1.0 surface's operation on the same AgentPort as the HTTP bindings (so registry, turn order, push
 * and auth behave the same), and encodes the result. Streams write each event as it arrives.
 */
export function createGrpcService(deps: GrpcSurfaceDeps): UntypedServiceImplementation {
  // Read per call: the server fills in the bound port (`grpc.port: 0`) once it listens.
  const env = (): OperationEnv => ({ port: deps.port, config: deps.config, baseUrl: deps.baseUrl });

  function logCall(name: GrpcMethodName, call: ServerCall, started: number, error?: unknown): void {
    const grpcStatus = error !== undefined ? statusOf(error).code : call.cancelled ? status.CANCELLED : status.OK;
    const fields = { surface: 'grpc', method: GRPC_METHODS[name].operation, grpcStatus };
    const durationMs = Date.now() - started;
    if (error !== undefined && !(error instanceof RejectedCall)) {
      deps.logger.info({ ...fields, durationMs, errorCode: toA2AError(error).code, cancelled: call.cancelled }, 'grpc call');
    } else deps.logger.info({ ...fields, durationMs }, 'grpc call');
  }

  function unary(name: GrpcMethodName, method: GrpcMethod) {
    return async (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): Promise<void> => {
      const started = Date.now();
      let opened: ReturnType<typeof openGrpcCall> | undefined;
      try {
        opened = openGrpcCall(call, deps.config, deps.shutdown);
        const prepared = prepareCall(method.operation, requestJson(method, decodedRequest(call.request)), env());
        if (prepared.kind !== 'unary') throw new Error('unreachable: a unary gRPC method bound to a stream operation');
        const result = await prepared.run(opened.ctx);
        echoExtensions(call, opened);
        callback(null, responseMessage(method, result));
        logCall(name, call, started);
      } catch (error) {
        callback(statusOf(error), null);
        logCall(name, call, started, error);
      } finally {
        opened?.release();
      }
    };
  }

  function streaming(name: GrpcMethodName, method: GrpcMethod) {
    return async (call: ServerWritableStream<unknown, unknown>): Promise<void> => {
      const started = Date.now();
      let opened: ReturnType<typeof openGrpcCall> | undefined;
      try {
        opened = openGrpcCall(call, deps.config, deps.shutdown);
        const { signal } = opened.ctx;
        const prepared = prepareCall(method.operation, requestJson(method, decodedRequest(call.request)), env());
        if (prepared.kind !== 'stream') throw new Error('unreachable: a streaming gRPC method bound to a unary operation');
        // Leaving the loop (the client cancelled: the signal aborts) ends the upstream stream too.
        let first = true;
        for await (const event of prepared.run(opened.ctx)) {
          if (signal.aborted) break;
          if (first) echoExtensions(call, opened);
          first = false;
          if (!call.write(responseMessage(method, event))) await drained(call, signal);
        }
        // A shutdown or deadline ends the stream with its error, not with OK.
        if (signal.aborted && !call.cancelled) throw toA2AError(signal.reason);
        if (!call.cancelled) call.end();
        logCall(name, call, started);
      } catch (error) {
        // grpc-js turns an `error` event on a server stream into the call's status.
        if (!call.cancelled) call.emit('error', statusOf(error));
        logCall(name, call, started, error);
      } finally {
        opened?.release();
      }
    };
  }

  const service: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(GRPC_METHODS) as Array<[GrpcMethodName, GrpcMethod]>) {
    service[name] = A2AService[name].responseStream ? streaming(name, method) : unary(name, method);
  }
  return service;
}
