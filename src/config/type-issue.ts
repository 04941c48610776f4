import { withoutUrlCredentials } from '../url-credentials.js';
import { SECRET_KEYS } from './secret-keys.js';

/** zod's `expected` in the operator's words. */
const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  string: 'a string',
  object: 'a mapping (keys under it)',
  array: 'a list',
};

/** How long a given text may be before it is cut in the message. */
const SHOWN_TEXT = 40;

/** What kind of value YAML, the environment or a flag gave: no value, only its kind. */
function kindOfValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

/**
 * The given value as the message shows it, where it is a typo in a scalar (`port: eighty`): a text cut
 * short and without URL credentials. Elsewhere its kind only: a secret's value, and a text where a
 * mapping belongs (`auth: <token>`, one level too high), may be a credential.
 */
function givenWords(value: unknown, secret: boolean, expected: string | undefined): string {
  const scalarExpected = expected === 'number' || expected === 'int' || expected === 'boolean';
  if (secret || !scalarExpected || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')) return kindOfValue(value);
  if (typeof value !== 'string') return String(value);
  const text = withoutUrlCredentials(value);
  return JSON.stringify(text.length > SHOWN_TEXT ? `${text.slice(0, SHOWN_TEXT)}…` : text);
}

/**
 * A wrong type (`port: abc`, `api-key: 123`) told like the gateway's other config messages: what is
 * expected and what was given, instead of zod's "Invalid input: expected number, received string".
 * A secret's value is never shown, only its kind.
 */
export function typeIssueText(expected: string | undefined, keys: readonly string[], given: unknown): string {
  const secret = keys.some((key) => SECRET_KEYS.has(key));
  return `expected ${EXPECTED[expected ?? ''] ?? `a ${expected ?? 'value of another type'}`}, got ${givenWords(given, secret, expected)}`;
}
