import { codeOf } from './failure-cause.js';

/**
 * Errors that say the agent's address was never reached: no connection, no such host, no route, a refused
 * TLS handshake. Nothing of the call reached the agent, so trying again later repeats no work of its; a
 * timeout or a connection reset mid-call does not say so (the agent may have begun the turn).
 */
const NEVER_REACHED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ENETDOWN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_NOT_YET_VALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether `error` (or an error it wraps: undici's, a dual-stack connect's AggregateError) says the agent was never reached. */
export const neverReached = (error: unknown): boolean => NEVER_REACHED.has(codeOf(error) ?? '');
