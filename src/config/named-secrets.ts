import { z } from 'zod';

/**
 * A client's name shows up as a metric label value and a log field, so it is held to characters
 * that need no escaping in either, and to a length that keeps series and lines readable.
 */
export const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const ClientName = z.string().regex(CLIENT_NAME, 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
const Secret = z.string().min(1);

export const NamedToken = z.strictObject({ name: ClientName, token: Secret });
export const NamedKey = z.strictObject({ name: ClientName, key: Secret });
export type NamedToken = z.infer<typeof NamedToken>;
export type NamedKey = z.infer<typeof NamedKey>;

/** One entry of a list of caller secrets: a plain secret (unnamed) or a named one. */
export type SecretEntry = string | NamedToken | NamedKey;

/**
 * A list of caller secrets, each a plain string or `{ name, <field> }`. A name may repeat: a client's
 * old and new key, side by side while it is rotated, are one client to the operator, though each
 * stays a caller of its own (its principal comes from the secret alone).
 */
function secretList<T extends NamedToken | NamedKey>(named: z.ZodType<T>, field: string) {
  return z.array(z.union([Secret, named], { error: `expected a string or { name, ${field} }` })).default([]);
}

/** `auth.tokens`. */
export const TokenList = secretList(NamedToken, 'token');
/** `auth.api-keys`, `bailian.api-keys`. */
export const KeyList = secretList(NamedKey, 'key');

/** The secret of an entry, named or not. */
export const secretOf = (entry: SecretEntry): string => (typeof entry === 'string' ? entry : 'token' in entry ? entry.token : entry.key);

/** The client name of an entry; undefined for a plain secret. */
export const nameOf = (entry: SecretEntry): string | undefined => (typeof entry === 'string' ? undefined : entry.name);

/** A Basic user or a token's client claim names the caller when it is a valid client name; anything else leaves it unnamed. */
export const clientNameOf = (name: string): string | undefined => (CLIENT_NAME.test(name) ? name : undefined);
