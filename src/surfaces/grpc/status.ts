import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN } from '@a2a-js/sdk/errors/grpc';
import { errorInfos, toA2AError } from '../../model/index.js';
import { statusDetailsWithinBudget } from './status-details-budget.js';
import { cutUtf8 } from './utf8-cut.js';

export type GrpcStatusName = keyof typeof status;

/** The numeric gRPC status for a status name of the error table (src/model/errors.ts). */
export function grpcStatusCode(name: string): status {
  return (status as unknown as Record<string, status | undefined>)[name] ?? status.INTERNAL;
}

export type GrpcErrorStatus = Pick<StatusObject, 'code' | 'details' | 'metadata'> & Partial<ServiceError>;

/**
 * Anything thrown as the gRPC status a caller receives: the code from the spec's mapping table, the
 * error's safe message as details, and for A2A errors and errors an agent gave ErrorInfo of its own a
 * `grpc-status-details-bin` google.rpc.Status carrying them (model/error-bodies.ts: A2A's reason under
 * `a2a-protocol.org` first, then the gateway's own, then the agent's).
 */
export function toGrpcStatus(error: unknown): GrpcErrorStatus {
  const a2a = toA2AError(error);
  const code = grpcStatusCode(a2a.statusInfo.grpcStatus);
  const metadata = new Metadata();
  const infos = errorInfos(a2a);
  const message = inTrailer(a2a.message);
  const details = infos.length > 0 ? statusDetailsWithinBudget(code, message, infos) : undefined;
  if (details) metadata.set(GRPC_STATUS_DETAILS_BIN, details);
  return { code, details: message, metadata };
}

/** Bytes of UTF-8 of an error's message a gRPC trailer carries. */
const TRAILER_MESSAGE_BYTES = 1_500;

/**
 * The message cut to TRAILER_MESSAGE_BYTES of UTF-8 at a character's boundary. It goes into the trailers
 * twice (`grpc-message` percent-encoded, up to three times its bytes; and base64 in
 * `grpc-status-details-bin`), and gRPC's C-core clients (Python, C++) refuse metadata past 8 KiB by
 * default: a long Chinese failure reason (1,000 characters, 3,000 bytes) would fail the call instead of
 * telling it. The details that go with it are bounded by what room it leaves (status-details-budget.ts).
 */
const inTrailer = (message: string): string => cutUtf8(message, TRAILER_MESSAGE_BYTES);

/** The answer to a call without acceptable credentials: no ErrorInfo, the scheme is not an A2A error. */
export function unauthenticated(): GrpcErrorStatus {
  return { code: status.UNAUTHENTICATED, details: 'Unauthorized', metadata: new Metadata() };
}
