import { withoutUrlCredentials } from '../url-credentials.js';
import { SECRET_KEYS } from './secret-keys.js';

/** zod's `expected` in the operator's words. */
const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  string: 'a string',
  object: 'a mapping (keys under it)',
  // A map of names (`limits.turns-in-flight-by-name`, `bailian.mappings`): set from a variable as JSON.
  record: 'a mapping (keys under it; in an environment variable, JSON such as {"name": 4})',
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

/**
 * YAML reads `protocol: 1.0` as the number 1 and `0.3` as a number too: name the choice it was meant to be,
 * quoted, since the number's own text ("1") no longer shows it.
 */
export function yamlNumberHint(choices: readonly unknown[], keys: readonly string[], given: unknown): string {
  if (typeof given !== 'number') return '';
  const meant = choices.find((choice): choice is string => typeof choice === 'string' && Number(choice) === given);
  return meant === undefined ? '' : ` — YAML read it as a number: quote it (${keys.at(-1) ?? 'key'}: "${meant}")`;
}

/**
 * A value outside a key's choices (`store: redsi`, `log-level: verbose`): the choices, instead of zod's
 * "Invalid option: expected one of "memory"|"redis"". A text given is not repeated: a secret set under the
 * wrong variable would end up in the message (a choice is never secret). A number or a switch is, as it
 * is for a number's key: YAML's reading of `protocol: 1.0` as 1 is what needs seeing.
 */
export function choiceIssueText(choices: readonly unknown[], given: unknown): string {
  const listed = choices.map((choice) => String(choice)).join(', ');
  const expected = choices.length === 1 ? listed : `one of ${listed}`;
  return typeof given === 'number' || typeof given === 'boolean' ? `expected ${expected}, got ${String(given)}` : `expected ${expected}`;
}
