import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Digests of configured secrets, made once: every authenticated call compares against one, and a
 * digest costs about a microsecond. Only configured secrets are kept, so the map stays as small as
 * the configuration.
 */
const configured = new Map<string, Buffer>();

function secretDigest(secret: string): Buffer {
  let known = configured.get(secret);
  if (known === undefined) {
    known = digest(secret);
    configured.set(secret, known);
  }
  return known;
}

/**
 * Constant-time comparison of what a caller presented with a configured secret. Both sides are
 * hashed first so the comparison always runs over 32 bytes: neither the length nor a common prefix
 * of the secret leaks.
 */
export function safeEqual(presented: string, secret: string): boolean {
  return timingSafeEqual(digest(presented), secretDigest(secret));
}

/**
 * The one of `secrets` that `presented` is, or undefined. The presented value is hashed once and
 * compared with every secret, so the time taken says nothing about which one matched, or how close.
 */
export function matchingSecret(presented: string, secrets: readonly string[]): string | undefined {
  const hashed = digest(presented);
  let match: string | undefined;
  for (const secret of secrets) if (timingSafeEqual(hashed, secretDigest(secret)) && match === undefined) match = secret;
  return match;
}
