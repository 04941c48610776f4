import { z } from 'zod';
import { clientNameOf, nameOf, ClientName, type SecretEntry } from './named-secrets.js';

const Cap = z.number().int().min(0);

/**
 * Caps on what one client may ask of the agent at once (`limits`). A client is a credential's name when
 * it has one (the old and the new key of a rotation, one client to the operator, share one count), else
 * the credential itself (its principal); every anonymous caller of a surface is one client.
 */
export const LimitsConfig = z
  .strictObject({
    /** Turns (message sends and streams) one client may have in flight at once; 0: no cap. */
    'turns-in-flight-per-client': Cap.default(0),
    /** The cap of the clients named here instead (0: none for that client), by client name. */
    'turns-in-flight-by-name': z
      .record(ClientName, Cap, {
        error: (issue) => (issue.code === 'invalid_key' ? 'a key is not a client name (1 to 64 letters, digits, ".", "_" or "-")' : undefined),
      })
      .default({}),
  })
  .prefault({});
export type LimitsConfig = z.infer<typeof LimitsConfig>;

/** The credential lists whose entries may carry a client name. */
interface NamedCredentials {
  auth: {
    tokens: readonly SecretEntry[];
    'api-keys': readonly SecretEntry[];
    'basic-username'?: string | undefined;
    'basic-password'?: string | undefined;
    /** Set: a token's client claim names its caller, so any name may turn up. */
    jwt?: unknown;
    introspection?: unknown;
  };
  bailian: { 'api-keys': readonly SecretEntry[] };
}

/** A name under `turns-in-flight-by-name` that no credential carries is most likely a typo: its cap would never apply. */
export function limitNameWarnings(config: NamedCredentials & { limits: LimitsConfig }): string[] {
  if (config.auth.jwt !== undefined || config.auth.introspection !== undefined) return [];
  const named = new Set(
    [...config.auth.tokens, ...config.auth['api-keys'], ...config.bailian['api-keys']].map(nameOf).filter((name) => name !== undefined),
  );
  const { 'basic-username': user, 'basic-password': password } = config.auth;
  const basic = user && password ? clientNameOf(user) : undefined;
  if (basic !== undefined) named.add(basic);
  return Object.keys(config.limits['turns-in-flight-by-name'])
    .filter((name) => !named.has(name))
    .map((name) => `limits.turns-in-flight-by-name.${name}: no credential is named ${name}, so this cap applies to no one`);
}
