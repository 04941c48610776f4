import type { GatewayConfig } from '../config/schema.js';
import { SECRET_KEYS } from '../config/secret-keys.js';
import { isRecord } from '../model/json.js';

/** Shorter than this, a secret is one a caller could guess or a placeholder left in (`x`, `test`). */
export const MIN_SECRET_LENGTH = 16;
/** How the shipped examples (deploy/k8s/secret.yaml) mark the values the operator must replace. */
const PLACEHOLDER_PREFIX = 'change-me';
/** Keys whose format is checked elsewhere (a PEM, `keyId:base64-key`): only a placeholder is said of them. */
const LENGTH_CHECKED_ELSEWHERE = new Set(['private-key', 'push-keys']);

interface FoundSecret {
  /** The setting, dotted, with a list's index (`auth.tokens[1]`): never the value. */
  setting: string;
  value: string;
  lengthChecked: boolean;
}

/** The secret of a list entry: a plain string or `{ name, token | key }` (named-secrets.ts). */
const entrySecret = (entry: unknown): string | undefined => {
  if (typeof entry === 'string') return entry;
  if (!isRecord(entry)) return undefined;
  const secret = entry.token ?? entry.key;
  return typeof secret === 'string' ? secret : undefined;
};

function* secretsIn(tree: unknown, path: string[] = []): Generator<FoundSecret> {
  if (!isRecord(tree)) return;
  for (const [key, value] of Object.entries(tree)) {
    const setting = [...path, key].join('.');
    if (!SECRET_KEYS.has(key)) {
      if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* secretsIn(item, [...path, `${key}[${index}]`]);
      else yield* secretsIn(value, [...path, key]);
      continue;
    }
    const lengthChecked = !LENGTH_CHECKED_ELSEWHERE.has(key);
    if (typeof value === 'string') yield { setting, value, lengthChecked };
    if (!Array.isArray(value)) continue;
    for (const [index, entry] of value.entries()) {
      const secret = entrySecret(entry);
      if (secret !== undefined) yield { setting: `${setting}[${index}]`, value: secret, lengthChecked };
    }
  }
}

/** The password in a URL's user info (`redis://:pw@host`, a Sentinel list of hosts too), percent-decoding undone. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^@/?#]*?:([^@/?#]*)@/i;

/**
 * URL-valued settings whose password is the examples' placeholder: deploy/k8s/secret.yaml's REDIS_URL
 * (`redis://:change-me-redis-password@…`) reaches `redis-url` through `${REDIS_URL}`, and a Redis that
 * requires no password would take it without a word.
 */
function* urlPasswordsIn(tree: unknown, path: string[] = []): Generator<{ setting: string; password: string }> {
  if (!isRecord(tree)) return;
  for (const [key, value] of Object.entries(tree)) {
    if (isRecord(value)) yield* urlPasswordsIn(value, [...path, key]);
    const password = typeof value === 'string' ? URL_PASSWORD.exec(value)?.[1] : undefined;
    if (password) yield { setting: [...path, key].join('.'), password: safeDecode(password) };
  }
}

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * Secrets that are only placeholders (the examples' `change-me-…`) or short enough to guess: accepted, as
 * a local trial may use `x`, but said at start by `serve` and by `check-config` (one function, the same
 * words), naming the setting and never the value.
 */
export function weakSecretWarnings(config: GatewayConfig): string[] {
  const warnings: string[] = [];
  for (const { setting, value, lengthChecked } of secretsIn(config)) {
    if (value.toLowerCase().startsWith(PLACEHOLDER_PREFIX)) {
      warnings.push(`${setting} is still a placeholder (it starts with "${PLACEHOLDER_PREFIX}"): set the real secret`);
    } else if (lengthChecked && value.length < MIN_SECRET_LENGTH) {
      warnings.push(
        `${setting} is shorter than ${MIN_SECRET_LENGTH} characters, which is easy to guess: use a long random secret (e.g. openssl rand -hex 24)`,
      );
    }
  }
  for (const { setting, password } of urlPasswordsIn(config)) {
    if (password.toLowerCase().startsWith(PLACEHOLDER_PREFIX))
      warnings.push(`${setting} has a password that is still a placeholder (it starts with "${PLACEHOLDER_PREFIX}"): set the real secret`);
  }
  return warnings;
}
