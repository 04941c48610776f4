import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { acceptedAlgorithms, type JwtAuthConfig } from '../../config/jwt-schema.js';
import { clientNameOf } from '../../config/named-secrets.js';
import type { KeySource } from '../../signing/upstream-keys.js';
import { callerOf, type Caller } from './caller.js';
import { jwtKeySource, type JwtKeyOptions } from './jwt-keys.js';
import { isUsableSubject, tokenSubjectPrincipal } from './principal.js';
import { throttledWarnings, WARN_EVERY_MS, type WarningLogger } from '../../throttled-warnings.js';

/** Who a Bearer JSON Web Token vouches for, or undefined when it does not verify under `auth.jwt`. */
export interface JwtCallers {
  (token: string): Promise<Caller | undefined>;
  /**
   * Loads the provider's keys now (at start), so that the first token finds them and they are not read
   * twice; when they cannot be loaded, the logger is told, and nothing is thrown.
   */
  loadKeys(): Promise<void>;
}

/** Three base64url segments: anything else is no JWT, and is not worth a key lookup. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const looksLikeJwt = (token: string): boolean => JWT_SHAPE.test(token);
/** A verified token is trusted again without a signature check for at most this long (and never past its `exp`). */
const REUSE_MS = 60_000;
const REUSED_TOKENS = 10_000;
/** The remembered tokens' own length, together: tokens are kept whole, and a provider's may be large. */
const REUSED_TOKEN_BYTES = 4 * 1024 * 1024;
/** Longer than any token a provider issues; a longer Bearer value is refused before it is parsed. */
const MAX_TOKEN_LENGTH = 16 * 1024;

export interface JwtCallersOptions extends JwtKeyOptions {
  /**
   * Told (at most once a minute) that tokens are refused because no key can be loaded; at debug, why each token
   * was refused (a wrong `auth.jwt.audience` or `issuer` reads as nothing but 401 otherwise).
   */
  logger?: WarningLogger & { debug?(fields: object, message: string): void };
}

/** Why a token did not verify, in jose's words (they name the claim or check, never a value of the token). */
const refusalOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Verifies callers' tokens: the signature with a key of the provider's (by the token's `kid` and
 * `alg`, one of the accepted algorithms only, so a public key can never be used as an HMAC secret),
 * then `iss`, `aud`, `exp` (required) and `nbf` with the configured leeway. The caller is the
 * subject: the principal is a digest of issuer and subject, so a client keeps its tasks across the
 * tokens it is issued, and two subjects never share them. A verified token is remembered for a minute
 * (bounded by its `exp`), so a client sending the same token on every call pays one check per minute,
 * and a gate asked twice for one request (before and after its body is read) verifies once.
 */
export function createJwtCallers(config: JwtAuthConfig, options: JwtCallersOptions = {}): JwtCallers {
  const now = options.now ?? Date.now;
  const keys: KeySource = jwtKeySource(config, options);
  const warn = throttledWarnings(options.logger, WARN_EVERY_MS, now);
  const keysUnavailable = (error: unknown): void => {
    const reason = error instanceof Error ? error.message : String(error);
    warn({ reason }, "auth.jwt: no key can be loaded: every token is refused until the provider's keys can be read");
  };
  const algorithms = acceptedAlgorithms(config);
  const verifyOptions = {
    issuer: config.issuer,
    audience: config.audience,
    algorithms,
    clockTolerance: config['clock-tolerance-ms'] / 1000,
    requiredClaims: ['exp'],
  };
  // Expiry kept beside the caller, not as the cache's TTL: it is checked against the verifier's clock.
  const reused = new LRUCache<string, { caller: Caller; until: number }>({
    max: REUSED_TOKENS,
    maxSize: REUSED_TOKEN_BYTES,
    sizeCalculation: (_value, token) => token.length,
  });

  const refused = (reason: string): undefined => {
    options.logger?.debug?.({ reason }, 'auth.jwt: a bearer token was refused');
    return undefined;
  };

  async function verified(token: string): Promise<JWTPayload | undefined> {
    let header: { alg?: string; kid?: string };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return refused('its header is not a JWT header');
    }
    if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) return refused(`its alg is not one of ${algorithms.join(', ')}`);
    const candidates = await keys.keysFor({ alg: header.alg, ...(typeof header.kid === 'string' ? { kid: header.kid } : {}) });
    let why = 'no key of the provider has its kid and alg';
    for (const key of candidates) {
      try {
        const { payload } = await jwtVerify(token, key, { currentDate: new Date(now()), ...verifyOptions });
        return payload;
      } catch (error) {
        // Another key of the set may have signed it; a claim that fails fails with every key alike.
        why = refusalOf(error);
      }
    }
    return refused(why);
  }

  const callers = async (token: string): Promise<Caller | undefined> => {
    if (token.length > MAX_TOKEN_LENGTH || !JWT_SHAPE.test(token)) return undefined;
    const known = reused.get(token);
    if (known) {
      if (known.until > now()) return known.caller;
      reused.delete(token);
    }
    let payload: JWTPayload | undefined;
    try {
      payload = await verified(token);
    } catch (error) {
      // The key server is unreachable and no key was ever loaded: the token cannot be trusted.
      keysUnavailable(error);
      return undefined;
    }
    const subject = payload?.[config['subject-claim']];
    if (payload === undefined) return undefined;
    if (!isUsableSubject(subject)) return refused(`its ${config['subject-claim']} claim names no subject`);
    const claimedName = payload[config['client-claim']];
    const caller = callerOf(
      tokenSubjectPrincipal('a2a-1.0', config.issuer, subject),
      typeof claimedName === 'string' ? clientNameOf(claimedName) : undefined,
    );
    reused.set(token, { caller, until: Math.min(now() + REUSE_MS, (payload.exp ?? 0) * 1000 + config['clock-tolerance-ms']) });
    return caller;
  };
  const loadKeys = (): Promise<void> => keys.keysFor({ alg: algorithms[0]! }).then(() => undefined, keysUnavailable);
  return Object.assign(callers, { loadKeys });
}
