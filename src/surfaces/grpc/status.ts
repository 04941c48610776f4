import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN } from '@a2a-js/sdk/errors/grpc';
import { errorInfos, toA2AError } from '../../model/index.js';
import { encodeStatusDetails } from './status-details.js';

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
 * `a2a-protocol.org` first, then the agent's).
 */
export function toGrpcStatus(error: unknown): GrpcErrorStatus {
  const a2a = toA2AError(error);
  const code = grpcStatusCode(a2a.statusInfo.grpcStatus);
  const metadata = new Metadata();
  const infos = errorInfos(a2a);
  if (infos.length > 0) metadata.set(GRPC_STATUS_DETAILS_BIN, encodeStatusDetails(code, a2a.message, infos));
  return { code, details: a2a.message, metadata };
}

/** The answer to a call without acceptable credentials: no ErrorInfo, the scheme is not an A2A error. */
export function unauthenticated(): GrpcErrorStatus {
  return { code: status.UNAUTHENTICATED, details: 'Unauthorized', metadata: new Metadata() };
}
