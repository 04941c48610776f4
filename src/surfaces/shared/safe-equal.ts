import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Constant-time string comparison for secrets. Both sides are hashed first so the comparison
 * always runs over 32 bytes: neither the length nor a common prefix of the secret leaks.
 */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
