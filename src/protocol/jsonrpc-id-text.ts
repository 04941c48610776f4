/**
 * The source text of a JSON-RPC body's top-level `id` member, as the caller wrote it. Node 20's JSON.parse
 * gives no access to a value's source text, and a number it cannot hold exactly (12345678901234567890,
 * 1.0000000000000001) comes out as another number: echoed, it is not the caller's id (jsonrpc-exact-ids.ts).
 *
 * Only for text JSON.parse already accepted: the scanner trusts the grammar and only skips what it must to
 * stay at the top level. Strings are skipped with indexOf (a body's bulk, a file's base64, goes by natively),
 * nested objects and arrays by their brackets outside strings.
 */
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, isJsonSpace, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-codes.js';

function skipSpace(text: string, at: number): number {
  while (at < text.length && isJsonSpace(text.charCodeAt(at))) at++;
  return at;
}

/** Just past the string opening at `at`, or -1 when it does not close. */
function skipString(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    // A quote is escaped when an odd run of backslashes precedes it (`\\"` closes the string).
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Just past the object or array opening at `at`, or -1 when it does not close. */
function skipNested(text: string, at: number): number {
  let depth = 0;
  for (let index = at; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = skipString(text, index);
      if (end < 0) return -1;
      index = end - 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
    } else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth === 0) {
      return index + 1;
    }
  }
  return -1;
}

/** Just past the value starting at `at` (no space before it), or -1. */
function skipValue(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === QUOTE) return skipString(text, at);
  if (code === OPEN_BRACE || code === OPEN_BRACKET) return skipNested(text, at);
  // A number or a literal (true, false, null): up to what may follow a value.
  let end = at;
  while (end < text.length && !endsScalar(text.charCodeAt(end))) end++;
  return end;
}

const endsScalar = (code: number): boolean => code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isJsonSpace(code);

/** Whether the key string `text.slice(start, end)` (quotes included) is `id`, however it is escaped (`"\u0069d"`). */
function isIdKey(text: string, start: number, end: number): boolean {
  if (end - start === 4) return text.startsWith('"id"', start);
  // Written longer than `"id"`, only an escaped key can still spell `id` (rare: parsed only then).
  const key = text.slice(start, end);
  return key.includes('\\') && JSON.parse(key) === 'id';
}

/**
 * The text of the top-level object's `id` member value, exactly as written (`12345678901234567890`, `"a"`,
 * `null`); the last one when the key repeats, as JSON.parse keeps the last. Undefined when the text is not
 * an object or has no `id` member. `text` must be JSON that JSON.parse accepted.
 */
export function topLevelIdText(text: string): string | undefined {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined;
  let found: string | undefined;
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_BRACE) return undefined;
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return found;
    const keyEnd = skipString(text, at);
    if (keyEnd < 0) return found;
    const isId = isIdKey(text, at, keyEnd);
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== COLON) return found;
    const valueStart = skipSpace(text, at + 1);
    const valueEnd = skipValue(text, valueStart);
    if (valueEnd < 0) return found;
    if (isId) found = text.slice(valueStart, valueEnd);
    at = skipSpace(text, valueEnd);
    if (text.charCodeAt(at) !== COMMA) return found;
    at = skipSpace(text, at + 1);
  }
}
