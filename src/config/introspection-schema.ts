import { z } from 'zod';

/** A claim name of an introspection answer: looked up as a plain key, so nothing but a plain name. */
const ClaimName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/, 'must be a claim name');

/**
 * `auth.introspection`: callers may present an OAuth 2.0 access token their identity provider issued
 * as an opaque string, which only the provider can read (RFC 7662 token introspection). The gateway
 * asks the provider's introspection endpoint, as a client of its own, and remembers the answer for a
 * while. The caller is the token's issuer and subject, as with `auth.jwt`.
 */
export const IntrospectionAuthConfig = z.strictObject({
  /** The provider's introspection endpoint. */
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  /** The gateway's own client at the provider (client_secret_basic). */
  'client-id': z.string().min(1),
  'client-secret': z.string().min(1),
  /** The provider: an answer naming another `iss` is refused, and callers are its subjects (as with `auth.jwt`). */
  issuer: z.string().min(1),
  /** The `aud` an answer must name (one of these): a token the provider issued for another API is refused (RFC 7662 §4). */
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  /** Allow `url` on private, loopback and metadata addresses (the provider on your own network). */
  'allow-private': z.boolean().default(false),
  /** How long an active token is trusted without asking again (never past its `exp`): a revoked token is refused at most this late. */
  'cache-ms': z.number().int().min(0).max(3_600_000).default(60_000),
  /** How long a refused token is refused without asking again, so a flood of bad tokens does not reach the provider. */
  'refused-cache-ms': z.number().int().min(0).max(600_000).default(10_000),
  'timeout-ms': z.number().int().min(1).max(60_000).default(5_000),
  /** Leeway for `exp` and `nbf` against the gateway's clock. */
  'clock-tolerance-ms': z.number().int().min(0).max(300_000).default(30_000),
  /** The claim that identifies the caller; a token issued to a client alone (no `sub`) is its `client_id`'s. */
  'subject-claim': ClaimName.default('sub'),
  /** The claim that names the client in logs and metrics (a valid client name only). */
  'client-claim': ClaimName.default('client_id'),
});
export type IntrospectionAuthConfig = z.infer<typeof IntrospectionAuthConfig>;
