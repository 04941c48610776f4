import { ERROR_INFO_TYPE, type ErrorInfo } from './error-info.js';
import { ERROR_DOMAIN } from './error-codes.js';
import type { A2AError } from './errors.js';
import { withFields } from './with-fields.js';

/**
 * The ErrorInfo an error carries on every binding, in this order: A2A's (the reason of its code's row,
 * under A2A's domain), then the gateway's own (GATEWAY_ERROR_DOMAIN), then the agent's own under their
 * domains. Clients that key off the first reason they know (a2a-js) read A2A's.
 */
export function errorInfos(error: A2AError): ErrorInfo[] {
  const reason = error.reason;
  const a2a = reason ? [{ reason, domain: ERROR_DOMAIN, metadata: error.metadata }] : [];
  const gateway = error.gatewayErrorInfo;
  return a2a.concat(gateway ? [gateway] : [], error.agentErrorInfo);
}

/** 1.0 JSON-RPC `error.data` and the HTTP+JSON `details`: google.rpc typed details. */
export function errorDetails(error: A2AError): unknown[] {
  const details: unknown[] = errorInfos(error).map((info) => withFields({ '@type': ERROR_INFO_TYPE }, info));
  if (error.violations.length > 0) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: error.violations });
  }
  return details;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The error object of a 1.0 JSON-RPC response. */
export function toJsonRpcError(error: A2AError): JsonRpcErrorObject {
  const details = errorDetails(error);
  return details.length > 0 ? { code: error.code, message: error.message, data: details } : { code: error.code, message: error.message };
}

/** The `Retry-After` header of a refusal for now (A2AError.retryAfterSeconds), else none. */
export function retryAfterHeader(error: A2AError): Record<string, string> {
  return error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
}

/** The 1.0 HTTP+JSON error body (google.rpc.Status) and its HTTP status. */
export function toRestError(error: A2AError): { status: number; body: { error: Record<string, unknown> } } {
  const info = error.statusInfo;
  return {
    status: info.httpStatus,
    body: { error: { code: info.httpStatus, status: info.grpcStatus, message: error.message, details: errorDetails(error) } },
  };
}
