import { base64url, decodeProtectedHeader, flattenedVerify } from 'jose';
import { cardPayload, type PayloadDialect } from './card-payload.js';
import type { KeySource } from './upstream-keys.js';

/** Why a card did not verify; the names follow iac-code's verifier where they overlap. */
export type VerificationFailure =
  'unsigned' | 'malformed-signature' | 'unsupported-algorithm' | 'unknown-key' | 'key-source-unavailable' | 'signature-mismatch';

export type VerificationResult = { valid: true; kid?: string; alg: string } | { valid: false; reason: VerificationFailure };

/** Algorithms a card signature may use; `none` and anything unlisted are refused before a key is looked up. */
const ALGORITHMS = new Set(['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'RS256', 'PS256', 'HS256', 'HS384', 'HS512']);
// A worse failure hides a milder one when several signatures fail: a mismatch says more than a missing key.
const RANK: VerificationFailure[] = [
  'unsigned',
  'malformed-signature',
  'unsupported-algorithm',
  'unknown-key',
  'key-source-unavailable',
  'signature-mismatch',
];
const DIALECTS: PayloadDialect[] = ['jcs', 'python'];

interface SignatureEntry {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

const isEntry = (value: unknown): value is SignatureEntry =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as SignatureEntry).protected === 'string' &&
  typeof (value as SignatureEntry).signature === 'string';

async function verifyOne(entry: unknown, payloads: ReadonlySet<string>, keys: KeySource): Promise<VerificationResult> {
  if (!isEntry(entry)) return { valid: false, reason: 'malformed-signature' };
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = decodeProtectedHeader({ protected: entry.protected, signature: entry.signature });
  } catch {
    return { valid: false, reason: 'malformed-signature' };
  }
  const { alg, kid } = header;
  if (typeof alg !== 'string' || (kid !== undefined && typeof kid !== 'string')) return { valid: false, reason: 'malformed-signature' };
  if (!ALGORITHMS.has(alg)) return { valid: false, reason: 'unsupported-algorithm' };
  let candidates;
  try {
    candidates = await keys.keysFor({ alg, ...(kid !== undefined ? { kid } : {}) });
  } catch {
    return { valid: false, reason: 'key-source-unavailable' };
  }
  if (candidates.length === 0) return { valid: false, reason: 'unknown-key' };
  // The unprotected `header` is not signed, and iac-code sends `{}`: only the protected one counts.
  for (const key of candidates) {
    for (const payload of payloads) {
      try {
        await flattenedVerify({ payload, protected: entry.protected, signature: entry.signature }, key, { algorithms: [alg] });
        return { valid: true, alg, ...(kid !== undefined ? { kid } : {}) };
      } catch {
        // Another key or payload dialect may still match.
      }
    }
  }
  return { valid: false, reason: 'signature-mismatch' };
}

/**
 * Whether at least one of the card's `signatures` verifies (A2A §8.4): a JWS whose detached payload is
 * the card canonicalized without `signatures`, checked with a key of the configured sources that
 * fits its `alg` and `kid`. Signers canonicalize in one of two ways (card-payload.ts); both are tried.
 */
export async function verifyCardSignatures(card: unknown, keys: KeySource): Promise<VerificationResult> {
  const signatures = (card as { signatures?: unknown } | null)?.signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) return { valid: false, reason: 'unsigned' };
  const payloads = new Set<string>();
  for (const dialect of DIALECTS) {
    try {
      payloads.add(base64url.encode(cardPayload(card, dialect)));
    } catch {
      // A card JCS refuses (a lone surrogate) cannot carry a JCS signature.
    }
  }
  let worst: VerificationFailure = 'unsigned';
  for (const entry of signatures) {
    const result = await verifyOne(entry, payloads, keys);
    if (result.valid) return result;
    if (RANK.indexOf(result.reason) > RANK.indexOf(worst)) worst = result.reason;
  }
  return { valid: false, reason: worst };
}
