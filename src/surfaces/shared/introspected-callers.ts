import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { IntrospectionAuthConfig } from '../../config/introspection-schema.js';
import { clientNameOf } from '../../config/named-secrets.js';
import { guardedPostJson } from '../../guarded-get.js';
import { isRecord } from '../../model/json.js';
import type { LookupFunction } from '../../push/url-policy.js';
import { throttledWarnings, WARN_EVERY_MS, type WarningLogger } from '../../throttled-warnings.js';
import { callerOf, type Caller } from './caller.js';
import { tokenSubjectPrincipal } from './principal.js';

/** Who an opaque Bearer token vouches for, as the provider's introspection endpoint says, or undefined. */
export type IntrospectedCallers = (token: string) => Promise<Caller | undefined>;

export interface IntrospectedCallersOptions {
  /** Told (at most once a minute) that the endpoint cannot be asked, so every new token is refused. */
  logger?: WarningLogger;
  now?: () => number;
  lookup?: LookupFunction;
}

/** RFC 6750's b64token: anything else is no access token, and is not worth asking about. */
const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN_LENGTH = 16 * 1024;
const REMEMBERED_TOKENS = 10_000;
/** An answer is a small JSON object; a larger body is refused, not parsed. */
const MAX_ANSWER_BYTES = 64 * 1024;

type Remembered = { caller: Caller | undefined; until: number };

/** RFC 6749 §2.3.1: client_secret_basic form-encodes id and secret before joining them. */
const basicAuthorization = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const audiences = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((one) => typeof one === 'string') : [];

const seconds = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined);

/**
 * Asks the provider about each new token (RFC 7662, as a client of its own with client_secret_basic)
 * and remembers the answer: an active token for `cache-ms` (never past its `exp`), a refused one for
 * `refused-cache-ms`; tokens are remembered by digest, never kept whole. Concurrent requests with one
 * new token ask once. An answer counts only when it is `active: true`, not expired or not yet valid,
 * not a refresh token, from the configured issuer and for the configured audience (when set). An
 * endpoint that cannot be asked refuses the token without remembering it, so callers are back as soon as
 * it answers again.
 */
export function createIntrospectedCallers(config: IntrospectionAuthConfig, options: IntrospectedCallersOptions = {}): IntrospectedCallers {
  const now = options.now ?? Date.now;
  const warn = throttledWarnings(options.logger, WARN_EVERY_MS, now);
  const remembered = new LRUCache<string, Remembered>({ max: REMEMBERED_TOKENS });
  const asking = new Map<string, Promise<Remembered | undefined>>();
  const authorization = basicAuthorization(config['client-id'], config['client-secret']);
  const wanted = config.audience === undefined ? undefined : audiences(config.audience);

  function callerIn(answer: unknown): { caller: Caller; expires: number | undefined } | undefined {
    if (!isRecord(answer) || answer.active !== true) return undefined;
    const at = now();
    const expires = seconds(answer.exp);
    const notBefore = seconds(answer.nbf);
    if ((expires !== undefined && expires <= at) || (notBefore !== undefined && notBefore > at)) return undefined;
    if (typeof answer.token_type === 'string' && answer.token_type.toLowerCase() === 'refresh_token') return undefined;
    if (config.issuer !== undefined && answer.iss !== undefined && answer.iss !== config.issuer) return undefined;
    if (wanted && !audiences(answer.aud).some((audience) => wanted.includes(audience))) return undefined;
    const subject = answer[config['subject-claim']] ?? answer.client_id;
    if (typeof subject !== 'string' || subject === '') return undefined;
    const issuer = config.issuer ?? (typeof answer.iss === 'string' && answer.iss !== '' ? answer.iss : config.url);
    const named = answer[config['client-claim']];
    const caller = callerOf(tokenSubjectPrincipal('a2a-1.0', issuer, subject), typeof named === 'string' ? clientNameOf(named) : undefined);
    return { caller, expires };
  }

  async function ask(token: string): Promise<Remembered | undefined> {
    let answer: unknown;
    try {
      answer = await guardedPostJson(
        config.url,
        {
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization },
        },
        {
          allowPrivate: config['allow-private'],
          timeoutMs: config['timeout-ms'],
          maxBytes: MAX_ANSWER_BYTES,
          accept: 'application/json',
          ...(options.lookup ? { lookup: options.lookup } : {}),
        },
        'the introspection answer',
      );
    } catch (error) {
      // The reason names the URL's fault, never the token or the body.
      warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'auth.introspection: the endpoint cannot be asked: new tokens are refused',
      );
      return undefined;
    }
    const found = callerIn(answer);
    const at = now();
    if (!found) return { caller: undefined, until: at + config['refused-cache-ms'] };
    return { caller: found.caller, until: Math.min(at + config['cache-ms'], found.expires ?? Infinity) };
  }

  return async (token) => {
    if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return undefined;
    const key = createHash('sha256').update(token).digest('base64url');
    const known = remembered.get(key);
    if (known && known.until > now()) return known.caller;
    let pending = asking.get(key);
    if (!pending) {
      pending = ask(token).finally(() => asking.delete(key));
      asking.set(key, pending);
    }
    const answer = await pending;
    if (answer && answer.until > now()) remembered.set(key, answer);
    return answer?.caller;
  };
}
