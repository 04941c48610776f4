/**
 * A gRPC call's deadline is watched twice at once: grpc-js answers DEADLINE_EXCEEDED on its own timer, and the
 * gateway aborts the call's upstream work on one of its own, set for the same instant. Which runs first is up to
 * the event loop: when the gateway's did, the call failed with the aborted upstream call's error before grpc-js had
 * marked it cancelled, and was answered and logged INTERNAL, -32603 (the error-ratio alert's codes) instead of its
 * caller's leaving. Under load the e2e case (caller-left-calls.test.ts) saw it; here that order is made certain by
 * a call grpc-js has not told of its deadline yet, the gateway's service driven directly.
 */
import { EventEmitter } from 'node:events';
import { Metadata, status, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import type { AgentPort, CallContext } from '../../../src/core/agent-port.js';
import { createLogger } from '../../../src/log.js';
import { GRPC_METHODS, requestMessage } from '../../../src/protocol/grpc.js';
import { grpcSurfaceOptions } from '../../../src/surface-options.js';
import { createGrpcService } from '../../../src/surfaces/grpc/service.js';
import { fromTransportError } from '../../../src/upstream/upstream-errors.js';

/** An agent that never answers a GetTask, and fails it as the upstream client does once the call's signal aborts. */
const silentAgent = {
  getTask: (_request: unknown, ctx: CallContext) =>
    new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(fromTransportError(ctx.signal.reason, { caller: ctx.signal })))),
} as unknown as AgentPort;

/** A unary GetTask as grpc-js hands it over, with a deadline `inMs` away that grpc-js itself has not acted on. */
function getTaskCall(inMs: number): ServerUnaryCall<unknown, unknown> {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  const deadline = new Date(Date.now() + inMs);
  return Object.assign(new EventEmitter(), {
    metadata,
    request: requestMessage(GRPC_METHODS.getTask, { id: 'task-1' }),
    cancelled: false,
    getDeadline: () => deadline,
    getPeer: () => 'ipv4:127.0.0.1:50000',
    sendMetadata: () => undefined,
  }) as unknown as ServerUnaryCall<unknown, unknown>;
}

it('a GetTask whose deadline passes before grpc-js answers it: answered DEADLINE_EXCEEDED, logged ended caller_left', async () => {
  const logged: Array<Record<string, unknown>> = [];
  const service = createGrpcService({
    port: silentAgent,
    options: grpcSurfaceOptions(defaultConfig()),
    logger: createLogger('info', { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) }),
    baseUrl: () => 'http://127.0.0.1:1',
  });

  const getTask = service.getTask as (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

  const answered = await new Promise<Parameters<sendUnaryData<unknown>>[0]>((resolve) => getTask(getTaskCall(50), (error) => resolve(error)));

  // What the caller would be told had it still been there: what grpc-js tells it, not a failure of the gateway.
  expect(answered).toMatchObject({ code: status.DEADLINE_EXCEEDED });
  const lines = logged.filter((line) => line.msg === 'grpc call');
  expect(lines).toEqual([expect.objectContaining({ method: 'GetTask', grpcStatus: status.DEADLINE_EXCEEDED, ended: 'caller_left' })]);
  expect(lines[0]).not.toHaveProperty('errorCode');
});
