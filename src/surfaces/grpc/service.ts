import {
  Metadata,
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AgentPort } from '../../core/agent-port.js';
import { answerTaskRef, withFields, toA2AError } from '../../model/index.js';
import { A2AService, GRPC_METHODS, requestJson, responseMessage, type GrpcMethod, type GrpcMethodName } from '../../protocol/grpc.js';
import type { CardSource } from '../../core/card-source.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { Tracer } from '@opentelemetry/api';
import type { CardSigner } from '../../signing/card-signer.js';
import { StreamCut } from '../shared/cut-stream.js';
import type { RequestLogFields } from '../shared/env.js';
import { tooDeeplyNested, valueNestedDeeperThan } from '../shared/json-depth.js';
import { addLogFields } from '../shared/log-fields.js';
import { outlivesCaller, prepareCall } from '../shared/operations.js';
import { openV1Stream } from '../shared/stream-open.js';
import { v1OperationEnv } from '../v1/deps.js';
import { callerLeftStatus, deadlineExceeded, openGrpcCall, RejectedCall, type GrpcCall, type ServerCall } from './call.js';
import { writeCallLine } from './call-line.js';
import { callsPerClient } from './calls-per-client.js';
import { decodedRequest } from './definition.js';
import { withEncodableTimestamps } from './encodable.js';
import type { GrpcSurfaceOptions } from './options.js';
import { toGrpcStatus, type GrpcErrorStatus } from './status.js';

export interface GrpcSurfaceDeps {
  port: AgentPort;
  options: GrpcSurfaceOptions;
  logger: Logger;
  /** The gateway's public HTTP base URL (the extended card's JSON-RPC and HTTP+JSON interfaces point there). */
  baseUrl(): string;
  /** Aborted (reason: the error to report) when the gateway shuts down. */
  shutdown?: AbortSignal;
  /** The upstream card: its required extensions are asked of message sends, as on the HTTP bindings. */
  cards?: CardSource;
  /** Signs the extended card, as on the HTTP bindings. */
  signer?: CardSigner;
  /** Counts every call (and times unary ones) like the HTTP bindings' requests. */
  metrics?: GatewayMetrics;
  /** With traces recorded: one SERVER span per call, parent of its upstream calls' spans. */
  tracer?: Tracer;
}

/**
 * The response headers (initial metadata), with the upstream's activated extensions as
 * `a2a-extensions`; `always` sends them even without extensions (a stream the upstream accepted but
 * that is still quiet: the caller sees the call answered).
 */
function sendHeaders(call: ServerCall, opened: GrpcCall, always = false): void {
  const uris = opened.activated();
  if (uris.length === 0 && !always) return;
  const metadata = new Metadata();
  if (uris.length > 0) metadata.set('a2a-extensions', uris.join(', '));
  call.sendMetadata(metadata);
}

const statusOf = (error: unknown): GrpcErrorStatus => (error instanceof RejectedCall ? error.status : toGrpcStatus(error));

/** The status a failed call is answered: its error's, unless its deadline passed and ended it (callerLeftStatus). */
const failureStatus = (error: unknown, opened: GrpcCall | undefined): GrpcErrorStatus =>
  opened?.deadlinePassed() ? deadlineExceeded() : statusOf(error);

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
 * The task a call is about, named on its log line as on an HTTP binding's request line (call-pipeline.ts): from
 * the request, then refined by the answer (or a stream's first event), so an operator finds a task's calls
 * whichever binding made them.
 */
type CallTaskFields = Pick<RequestLogFields, 'taskId' | 'contextId' | 'state'>;

/** A decoded request as the 1.0 params it carries, nested no deeper than the JSON bindings take (json-depth.ts). */
function requestParams(method: GrpcMethod, request: unknown): unknown {
  const params = requestJson(method, decodedRequest(request));
  if (valueNestedDeeperThan(params)) throw tooDeeplyNested();
  return params;
}

/**
 * The `lf.a2a.v1.A2AService` implementation: each method decodes its request to ProtoJSON, runs the
 * 1.0 surface's operation on the same AgentPort as the HTTP bindings (so registry, turn order, push
 * and auth behave the same), and encodes the result. Streams write each event as it arrives.
 */
export function createGrpcService(deps: GrpcSurfaceDeps): UntypedServiceImplementation {
  // Read per call: the server fills in the bound port (`grpc.port: 0`) once it listens.
  const { cards, signer } = deps;
  const env = () =>
    v1OperationEnv({ port: deps.port, options: deps.options, ...(cards ? { cards } : {}), ...(signer ? { signer } : {}) }, deps.baseUrl);

  function logCall(
    name: GrpcMethodName,
    call: ServerCall,
    started: number,
    opened: GrpcCall | undefined,
    task: CallTaskFields,
    error?: unknown,
  ): void {
    const method = GRPC_METHODS[name].operation;
    const durationMs = Date.now() - started;
    // A caller that hung up is no failure: the `ended` an HTTP request line or `stream ended` line says of it.
    const left = callerLeftStatus(call, opened, error !== undefined);
    if (left !== undefined) {
      opened?.span?.end(left, undefined, 'caller_left');
      writeCallLine(deps, { method, client: opened?.client, ...task, grpcStatus: left, durationMs }, 'caller_left');
      return;
    }
    const grpcStatus = error !== undefined ? statusOf(error).code : status.OK;
    opened?.span?.end(grpcStatus, error instanceof RejectedCall ? undefined : error);
    const errorCode = error !== undefined && !(error instanceof RejectedCall) ? toA2AError(error).code : undefined;
    writeCallLine(deps, { method, client: opened?.client, ...task, grpcStatus, durationMs }, { errorCode });
  }

  const trace = (method: GrpcMethod) => (deps.tracer ? { tracer: deps.tracer, method: method.operation } : undefined);
  const places = callsPerClient(deps.options.callsPerClient, deps.options.trustProxy);

  function unary(name: GrpcMethodName, method: GrpcMethod) {
    return async (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>): Promise<void> => {
      const started = Date.now();
      let opened: GrpcCall | undefined;
      const task: CallTaskFields = {};
      try {
        opened = await openGrpcCall(call, deps.options, deps.shutdown, trace(method), places, outlivesCaller(method.operation));
        const prepared = prepareCall(method.operation, requestParams(method, call.request), env());
        addLogFields(task, prepared.ref);
        if (prepared.kind !== 'unary') throw new Error('unreachable: a unary gRPC method bound to a stream operation');
        const timing = { upstreamSeconds: 0 };
        const result = await prepared.run(deps.metrics ? withFields(opened.ctx, { timing }) : opened.ctx);
        opened.span?.note(result);
        addLogFields(task, answerTaskRef(result));
        sendHeaders(call, opened);
        callback(null, responseMessage(method, withEncodableTimestamps(result)));
        deps.metrics?.blockingCall('grpc', method.operation, (Date.now() - started) / 1000, timing.upstreamSeconds);
        logCall(name, call, started, opened, task);
      } catch (error) {
        callback(failureStatus(error, opened), null);
        logCall(name, call, started, opened, task, error);
      } finally {
        opened?.release();
      }
    };
  }

  function streaming(name: GrpcMethodName, method: GrpcMethod) {
    return async (call: ServerWritableStream<unknown, unknown>): Promise<void> => {
      const started = Date.now();
      let opened: GrpcCall | undefined;
      const cut = new StreamCut(method.operation === 'SendStreamingMessage');
      const task: CallTaskFields = {};
      try {
        opened = await openGrpcCall(call, deps.options, deps.shutdown, trace(method), places);
        const { signal } = opened.ctx;
        const prepared = prepareCall(method.operation, requestParams(method, call.request), env());
        addLogFields(task, prepared.ref);
        if (prepared.kind !== 'stream') throw new Error('unreachable: a streaming gRPC method bound to a unary operation');
        // As on the HTTP bindings: the first event is bounded, and a stream that ends before the turn did fails.
        const current = opened;
        const stream = await openV1Stream(
          (ctx) => prepared.run(ctx),
          { ctx: current.ctx, abort: () => current.abort() },
          deps.options.firstEventTimeoutMs,
        );
        addLogFields(task, answerTaskRef(stream.first));
        let headersSent = stream.quiet;
        if (stream.quiet) sendHeaders(call, current, true);
        // Leaving the loop (the client cancelled: the signal aborts) ends the upstream stream too.
        for await (const event of stream.events) {
          if (signal.aborted) break;
          current.span?.note(event);
          // The last state its caller was sent, as the SSE bindings' `stream ended` line says it.
          const state = cut.seen(event);
          if (state !== undefined) task.state = state;
          if (!headersSent) sendHeaders(call, current);
          headersSent = true;
          if (!call.write(responseMessage(method, withEncodableTimestamps(event)))) await drained(call, signal);
        }
        // A shutdown or deadline ends the stream with its error, not with OK.
        if (signal.aborted && !call.cancelled) throw toA2AError(signal.reason);
        if (!call.cancelled) call.end();
        logCall(name, call, started, opened, task);
      } catch (thrown) {
        const error = cut.ending(thrown);
        // grpc-js turns an `error` event on a server stream into the call's status.
        if (!call.cancelled) call.emit('error', failureStatus(error, opened));
        logCall(name, call, started, opened, task, error);
      } finally {
        opened?.release();
      }
    };
  }

  const service: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(GRPC_METHODS) as Array<[GrpcMethodName, GrpcMethod]>) {
    service[name] = A2AService[name].responseStream ? detached(streaming(name, method)) : detached(unary(name, method));
  }
  return service;
}

/**
 * grpc-js ignores a handler's promise. Each handler answers its own failures; should its error path
 * itself throw, that must still not become an unhandled rejection, which ends the process.
 */
function detached<A extends unknown[]>(handler: (...args: A) => Promise<void>): (...args: A) => void {
  return (...args) => void handler(...args).catch(() => undefined);
}
