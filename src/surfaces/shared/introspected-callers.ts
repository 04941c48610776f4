import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { IntrospectionAuthConfig } from '../../config/introspection-schema.js';
import { clientNameOf } from '../../config/named-secrets.js';
import { guardedPostJson } from '../../http/guarded-get.js';
import { isRecord } from '../../model/json.js';
import type { LookupFunction } from '../../push/url-policy.js';
import { throttledWarnings, WARN_EVERY_MS, type WarningLogger } from '../../throttled-warnings.js';
import { callerOf, type Caller } from './caller.js';
import { isUsableSubject, tokenSubjectPrincipal } from './principal.js';

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

/** Questions open at the provider at once; past them a new token is refused unasked, so made-up tokens cannot flood it through the gateway. */
const MAX_ASKING = 32;

/** RFC 6749 §2.3.1: client_secret_basic encodes id and secret before joining them (percent-encoding, which form decoders read too). */
const basicAuthorization = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const audiences = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((one) => typeof one === 'string') : [];

/** A time claim in ms; `null` when present but not a number (an answer to refuse), undefined when absent. */
function timeClaim(value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : null;
}

/** Refresh tokens as providers mark them: RFC 7662's hint value, Hydra's `token_use`, Keycloak's `typ`. */
const isRefreshToken = (answer: Record<string, unknown>): boolean =>
  [answer.token_type, answer.token_use, answer.typ].some((mark) => typeof mark === 'string' && /^refresh(_token)?$/i.test(mark));

/**
 * Asks the provider about each new token (RFC 7662, as a client of its own with client_secret_basic)
 * and remembers the answer: an active token for `cache-ms` (never past its `exp`), a refused one for
 * `refused-cache-ms`; tokens are remembered by digest, never kept whole. Concurrent requests with one
 * new token ask once, and at most MAX_ASKING questions are open at once. An answer counts only when it is
 * `active: true`, within its `exp` and `nbf` (with `clock-tolerance-ms`), not a refresh token, of the
 * configured issuer (when it names one) and for the configured audience. A token issued to a client alone
 * (no subject) is that client's, never a user's of the same name. An endpoint that cannot be asked
 * refuses the token without remembering it, so callers are back as soon as it answers again.
 */
export function createIntrospectedCallers(config: IntrospectionAuthConfig, options: IntrospectedCallersOptions = {}): IntrospectedCallers {
  const now = options.now ?? Date.now;
  const warn = throttledWarnings(options.logger, WARN_EVERY_MS, now);
  const warnBusy = throttledWarnings(options.logger, WARN_EVERY_MS, now);
  const remembered = new LRUCache<string, Remembered>({ max: REMEMBERED_TOKENS });
  const asking = new Map<string, Promise<Remembered | undefined>>();
  const authorization = basicAuthorization(config['client-id'], config['client-secret']);
  const wanted = audiences(config.audience);
  const tolerance = config['clock-tolerance-ms'];

  function callerIn(answer: unknown): { caller: Caller; expires: number | undefined } | undefined {
    if (!isRecord(answer) || answer.active !== true || isRefreshToken(answer)) return undefined;
    const at = now();
    const expires = timeClaim(answer.exp);
    const notBefore = timeClaim(answer.nbf);
    if (expires === null || notBefore === null) return undefined;
    if ((expires !== undefined && expires + tolerance <= at) || (notBefore !== undefined && notBefore - tolerance > at)) return undefined;
    if (answer.iss !== undefined && answer.iss !== config.issuer) return undefined;
    if (!audiences(answer.aud).some((audience) => wanted.includes(audience))) return undefined;
    const subject = answer[config['subject-claim']];
    const client = answer.client_id;
    // A client acting for itself is told apart from a user whose subject happens to be its id.
    const who =
      subject === undefined || subject === null || subject === ''
        ? typeof client === 'string' && client !== ''
          ? `\u0000client\u0000${client}`
          : undefined
        : isUsableSubject(subject)
          ? subject
          : undefined;
    if (who === undefined) return undefined;
    const named = answer[config['client-claim']];
    const caller = callerOf(tokenSubjectPrincipal('a2a-1.0', config.issuer, who), typeof named === 'string' ? clientNameOf(named) : undefined);
    return { caller, expires: expires === undefined ? undefined : expires + tolerance };
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
      if (asking.size >= MAX_ASKING) {
        warnBusy({ asking: asking.size }, 'auth.introspection: too many new tokens at once: the rest are refused unasked');
        return undefined;
      }
      pending = ask(token).finally(() => asking.delete(key));
      asking.set(key, pending);
    }
    const answer = await pending;
    if (answer && answer.until > now()) remembered.set(key, answer);
    return answer?.caller;
  };
}
