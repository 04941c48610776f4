import type { LookupFunction as NetLookupFunction } from 'node:net';
import { Client, errors } from 'undici';
import { withFields, A2AError } from '../model/index.js';
import { safeHeaders } from './headers.js';
import type { DeliveryResult, PushHandler, PushJob } from './queue/types.js';
import { CallbackResolutionError, resolveAndPin, validateCallbackUrl, type LookupFunction, type PinnedAddress } from './url-policy.js';

export interface DeliverOptions {
  allowPrivate: boolean;
  /** Bounds the whole delivery: DNS, connect, response headers and body. */
  timeoutMs: number;
  /** Secret headers (auth) resolved from the config store at dispatch time. */
  authHeaders?: Record<string, string>;
  lookup?: LookupFunction;
}

/**
 * Answers that no retry of the same request can change, so the notification is dead-lettered at once:
 * 410 Gone (the receiver says the resource is gone for good), and 413, 414 and 431 (the body, the URL
 * or the headers are too large, and a retry sends the same ones). Every other non-2xx is retried up to
 * `push-max-attempts`: during a receiver's deploy its ingress may answer 404, 403 or 502, or redirect
 * to a maintenance page, and a 4xx of a receiver being fixed (a 401 until its secret matches the
 * config again, which a caller may replace meanwhile) is not final either.
 */
const FINAL_STATUS = new Set([410, 413, 414, 431]);
const MAX_DRAINED_BYTES = 64 * 1024;
/**
 * TLS failures of the receiver's certificate (Node's codes): it will not verify on the next attempt
 * either, so the notification is dead-lettered at once instead of after every retry.
 */
const CERTIFICATE_ERRORS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_REJECTED',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'INVALID_CA',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** net/tls `lookup` that always answers with the address that passed the policy. */
export function pinnedLookup(pin: PinnedAddress): NetLookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pin.address, family: pin.family }]);
    else callback(null, pin.address, pin.family);
  };
}

function classifyStatus(status: number): DeliveryResult {
  if (status >= 200 && status < 300) return { outcome: 'delivered', status };
  if (FINAL_STATUS.has(status)) return { outcome: 'permanent', status, error: `HTTP ${status}` };
  // A redirect is never followed (it could point anywhere the policy forbids), but retried: a maintenance page's goes away.
  return { outcome: 'retry', status, error: `HTTP ${status}` };
}

/** `requested`: the request had been handed to the connection when it failed. */
function classifyError(error: unknown, timedOut: boolean, requested = false): DeliveryResult {
  // Given up while the receiver may be working on it: sent, for the stale-state check (stale-notifications.ts).
  if (timedOut) return { outcome: 'retry', error: 'delivery timed out', ...(requested ? { mayHaveArrived: true } : {}) };
  if (error instanceof CallbackResolutionError) return { outcome: 'retry', error: error.message };
  if (error instanceof A2AError) return { outcome: 'permanent', error: error.message };
  if (error instanceof errors.InvalidArgumentError) return { outcome: 'permanent', error: 'invalid delivery request' };
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && CERTIFICATE_ERRORS.has(code)) return { outcome: 'permanent', error: `certificate rejected (${code})` };
  // Connection refused/reset, TLS handshake and socket errors: the receiver may be back later.
  return { outcome: 'retry', error: typeof code === 'string' ? `connection failed (${code})` : 'connection failed' };
}

/**
 * POSTs one job to its callback. The URL is re-validated (the policy may have changed since the
 * config was stored), resolved once, and the connection goes to that checked address while the
 * Host header and TLS server name stay the original host's. Redirects are not followed.
 */
export async function deliver(job: PushJob, options: DeliverOptions): Promise<DeliveryResult> {
  let url: URL;
  let headers: Record<string, string>;
  try {
    url = validateCallbackUrl(job.url, options);
    headers = safeHeaders(job.headers, options.authHeaders, { 'content-type': job.contentType });
  } catch (error) {
    return classifyError(error, false);
  }

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('push delivery timed out'));
  }, options.timeoutMs);
  let client: Client | undefined;
  // Only once connected (TLS handshake included) can the request have reached the receiver: an attempt
  // given up before that (an address dropping packets, a handshake that never ends) surely sent nothing.
  let requested = false;
  try {
    const pin = await resolveAndPin(url, withFields(options, { signal: controller.signal }));
    client = new Client(url.origin, {
      connect: { lookup: pinnedLookup(pin), timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // One request per client: the pin belongs to this delivery only.
      pipelining: 1,
      keepAliveTimeout: 1,
    });
    client.once('connect', () => (requested = true));
    const response = await client.request({
      method: 'POST',
      path: `${url.pathname}${url.search}`,
      headers,
      body: job.payload,
      signal: controller.signal,
    });
    await response.body.dump({ limit: MAX_DRAINED_BYTES }).catch(() => undefined);
    return classifyStatus(response.statusCode);
  } catch (error) {
    return classifyError(error, timedOut, requested);
  } finally {
    clearTimeout(timer);
    client?.destroy().catch(() => undefined);
  }
}

/** Auth headers for a job, or null when its config no longer exists (the job is then dropped). */
export type ResolveHeaders = (job: PushJob) => Promise<Record<string, string> | null>;

export interface PushHandlerOptions extends Omit<DeliverOptions, 'authHeaders'> {
  resolveHeaders: ResolveHeaders;
}

/** The queue handler: resolve the config's secrets now, then deliver. */
export function createPushHandler(options: PushHandlerOptions): PushHandler {
  return async (job) => {
    const authHeaders = await options.resolveHeaders(job);
    if (authHeaders === null) return { outcome: 'skipped', error: 'push config no longer exists' };
    return deliver(job, withFields(options, { authHeaders }));
  };
}
