import type { Context } from 'hono';
import { nameOf, secretOf, type SecretEntry } from '../../config/named-secrets.js';
import type { GatewayEnv } from './env.js';
import { noteLog } from './log-fields.js';
import { principalOf, type PrincipalScheme, type PrincipalSurface } from './principal.js';
import { matchingSecret } from './safe-equal.js';

/** Who a request came from, once a credential matched (or none was asked for). */
export interface Caller {
  /** Owner scope of the caller's tasks, derived from the credential alone (principal.ts). */
  principal: string;
  /** The configured client name: for logs, metrics and the turn cap (core/turn-limits.ts); it never decides which tasks a caller sees. */
  client?: string;
}

export const callerOf = (principal: string, client: string | undefined): Caller => (client === undefined ? { principal } : { principal, client });

/**
 * The callers one scheme admits, by secret. Made once per config block, so a request pays one
 * constant-time comparison per secret and a map lookup, as before names existed.
 */
export interface CallerTable {
  secrets: readonly string[];
  callers: ReadonlyMap<string, Caller>;
}

/** A scheme's single secret (unnamed) and its list; a secret given twice is one caller, named if either entry names it. */
export function callerTable(
  surface: PrincipalSurface,
  scheme: PrincipalScheme,
  single: string | undefined,
  entries: readonly SecretEntry[] = [],
): CallerTable {
  const callers = new Map<string, Caller>();
  for (const entry of single ? [single, ...entries] : entries) {
    const secret = secretOf(entry);
    if (callers.get(secret)?.client === undefined) callers.set(secret, callerOf(principalOf(surface, scheme, secret), nameOf(entry)));
  }
  return { secrets: [...callers.keys()], callers };
}

/** The caller whose secret was presented (compared in constant time with every one), or undefined. */
export function matchingCaller(presented: string | null | undefined, table: CallerTable): Caller | undefined {
  if (presented === null || presented === undefined || table.secrets.length === 0) return undefined;
  const secret = matchingSecret(presented, table.secrets);
  return secret === undefined ? undefined : table.callers.get(secret);
}

/** Hands the caller to the request: the principal to the handlers, the name to the request log line and the metrics. */
export function admitCaller(c: Context<GatewayEnv>, caller: Caller): void {
  c.set('principal', caller.principal);
  if (caller.client === undefined) return;
  c.set('client', caller.client);
  noteLog(c, { client: caller.client });
}
