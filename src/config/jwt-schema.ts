import { z } from 'zod';

/** The asymmetric algorithms a token may be signed with unless `algorithms` narrows them (never `none`). */
export const JWT_PUBLIC_KEY_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
const JwtAlgorithm = z.enum([...JWT_PUBLIC_KEY_ALGORITHMS, 'HS256']);

/** A JWT claim name: a token's claims are looked up by it, so nothing but a plain name. */
const ClaimName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/, 'must be a claim name');

/**
 * `auth.jwt`: callers may present a JSON Web Token as their Bearer credential, issued by the
 * operator's identity provider. The caller is the token's issuer and subject, not the token: a client
 * keeps its tasks across the tokens it is issued. Keys come from the provider's JWKS (fetched, or a
 * file) or a shared secret (HS256), as `upstream.card-verification` reads its keys; with none of them,
 * from the JWKS the issuer's OpenID configuration names.
 */
export const JwtAuthConfig = z
  .strictObject({
    /** The `iss` every token must carry. */
    issuer: z.string().min(1),
    /** The `aud` a token must name (one of these). */
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    'jwks-url': z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    'jwks-file': z.string().min(1).optional(),
    /** Allow `jwks-url` on private, loopback and metadata addresses (the provider on your own network). */
    'jwks-allow-private': z.boolean().default(false),
    /** How long a fetched JWKS is reused; a token naming an unknown kid refetches sooner (at most every 30 s). */
    'jwks-cache-ms': z.number().int().min(0).default(300_000),
    /** A shared secret (HS256): for a provider that signs with one. */
    secret: z.string().min(32, 'must be at least 32 characters (HS256 needs a 256-bit secret)').optional(),
    /** The algorithms accepted; default the public-key ones, plus HS256 when `secret` is set. */
    algorithms: z.array(JwtAlgorithm).min(1).optional(),
    /** Leeway for `exp` and `nbf` against the gateway's clock. */
    'clock-tolerance-ms': z.number().int().min(0).max(300_000).default(30_000),
    /** The claim that identifies the caller within the issuer. */
    'subject-claim': ClaimName.default('sub'),
    /** The claim that names the client in logs and metrics (a valid client name only); absent from a token: unnamed. */
    'client-claim': ClaimName.default('azp'),
  })
  .refine((jwt) => !usesDiscovery(jwt) || /^https?:\/\/[^/]/.test(jwt.issuer), {
    message: 'set jwks-url, jwks-file or secret, or an http(s) issuer whose OpenID configuration names its keys',
  })
  .refine((jwt) => jwt.secret !== undefined || !jwt.algorithms?.includes('HS256'), {
    message: 'HS256 needs a secret',
    path: ['algorithms'],
  });
export type JwtAuthConfig = z.infer<typeof JwtAuthConfig>;

/** No key source set: the keys are found through the issuer's OpenID configuration (its `jwks_uri`). */
export function usesDiscovery(jwt: { 'jwks-url'?: string | undefined; 'jwks-file'?: string | undefined; secret?: string | undefined }): boolean {
  return jwt['jwks-url'] === undefined && jwt['jwks-file'] === undefined && jwt.secret === undefined;
}

/** What a token may be signed with under this config. */
export function acceptedAlgorithms(jwt: JwtAuthConfig): string[] {
  return jwt.algorithms ?? [...JWT_PUBLIC_KEY_ALGORITHMS, ...(jwt.secret !== undefined ? ['HS256'] : [])];
}
