import { z } from 'zod';

/**
 * Keys the upstream's card signatures must verify against (JWS over the card, RFC 8785). At least one
 * source: `secret` (HS256, iac-code's `signing-secret`), a local JWKS file, or a JWKS URL fetched
 * under the push callback address rules.
 */
export const CardVerificationConfig = z.strictObject({
  /** Refuse to serve an upstream whose card does not verify (`/ready` fails); otherwise only warn. */
  required: z.boolean().default(false),
  secret: z.string().min(1).optional(),
  /** The `kid` the secret answers to; absent: any kid. */
  'secret-kid': z.string().min(1).optional(),
  'jwks-file': z.string().min(1).optional(),
  'jwks-url': z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** Allow `jwks-url` on private, loopback and metadata addresses (like push-allow-private). */
  'jwks-allow-private': z.boolean().default(false),
  /** How long a fetched JWKS is reused; an unknown kid refetches sooner (at most every 30 s). */
  'jwks-cache-ms': z.number().int().min(0).default(300_000),
});
export type CardVerificationConfig = z.infer<typeof CardVerificationConfig>;
