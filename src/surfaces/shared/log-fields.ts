import type { Context } from 'hono';
import type { A2AError } from '../../model/index.js';
import { failureCause, isServerFailure } from '../../upstream/failure-cause.js';
import type { GatewayEnv, RequestLogFields } from './env.js';

/** Adds fields to the request log line, when the app composer installed one (tests may not). */
export function noteLog(c: Context<GatewayEnv>, fields: RequestLogFields): void {
  noteLogFields(c.get('logFields'), fields);
}

/**
 * The same on the line's fields themselves (`c.get('logFields')`): what an open stream keeps to note its end on,
 * rather than the request's whole Hono context (its request, response and a dozen closures) for as long as it lasts.
 */
export function noteLogFields(target: RequestLogFields | undefined, fields: RequestLogFields): void {
  if (target) addLogFields(target, fields);
}

/**
 * Copies the fields that have a value onto a log line's fields: a later note (the answer's task) refines an
 * earlier one (the request's) without erasing what it left out. The gRPC binding's call line uses it too.
 */
export function addLogFields<T extends object>(target: T, fields: Partial<T>): void {
  // for-in, not Object.entries: this runs a few times per request.
  for (const key in fields) {
    const value = fields[key];
    if (value !== undefined) target[key] = value;
  }
}

/**
 * Notes a failed call on the request log line: its code always; and when the failure is not the
 * caller's (an upstream unreachable, reset, timed out or answering 5xx), why, so the line is written at
 * warn with its cause (log.ts). A JSON-RPC binding answers such a failure with HTTP 200, so the status
 * alone would leave it at info. A caller's own bad request (4xx in every binding) notes its code only.
 */
export function noteFailure(c: Context<GatewayEnv>, error: A2AError): void {
  noteLog(c, isServerFailure(error) ? { errorCode: error.code, ...failureCause(error) } : { errorCode: error.code });
}
