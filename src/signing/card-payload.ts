import { projectCard } from './card-schema.js';
import { canonicalize } from './jcs.js';
import { pythonJsonDumps } from './python-json.js';

/**
 * How a signer turned the card into the JWS payload. `jcs` is the A2A spec's (RFC 8785, what a2a-js
 * and the gateway produce); `python` is what a2a-python emits (iac-code), see python-json.ts.
 */
export type PayloadDialect = 'jcs' | 'python';

/** The bytes a card signature covers: the card's 1.0 schema fields, without `signatures`, canonicalized. */
export function cardPayload(card: unknown, dialect: PayloadDialect = 'jcs'): string {
  const projected = projectCard(card);
  return dialect === 'jcs' ? canonicalize(projected) : pythonJsonDumps(projected);
}
