import { COMMA, isJsonSpace, OPEN_BRACE } from './json-codes.js';
import { topLevelIdText } from './jsonrpc-id-text.js';

/**
 * A request's numeric id that JSON.parse did not hold as written: 12345678901234567890 parses to
 * 12345678901234567000, 1.0000000000000001 to 1. JSON-RPC 2.0 wants the response's id the same as the
 * request's, and a client that matches answers by id (with a parser that keeps every digit) never finds an
 * answer under another number, so the caller's text is kept and echoed verbatim (jsonRpcText). Anything else
 * that writes it (a log line, a plain JSON.stringify) reads the number JSON.parse made of it.
 */
export class ExactNumberId {
  constructor(
    /** The id as the request wrote it: a JSON number token. */
    readonly text: string,
    /** What JSON.parse made of it. */
    readonly value: number,
  ) {}

  toJSON(): number {
    return this.value;
  }
}

/** A request's id as answers echo it: a number JSON.parse did not hold as written keeps its text. */
export type JsonRpcId = string | number | null | ExactNumberId;

/**
 * The id to answer a request with: `parsed` (its top-level `id` as JSON.parse read `body`) as it is, unless it
 * is a number whose text in the body is not how JavaScript writes that number. A string or null costs one
 * comparison, a number the body ends on (`…,"id":7}`, as the a2a-js clients write every request) a
 * look at the body's end; any other number a scan of the body's top-level members (jsonrpc-id-text.ts), which
 * skips strings natively (about a quarter of JSON.parse's time on a short body, far less on a long one).
 */
export function exactId<T>(parsed: T, body: string): T | ExactNumberId {
  if (typeof parsed !== 'number' || endsOnId(body, parsed)) return parsed;
  const text = topLevelIdText(body);
  // Only a number token is echoed verbatim: no other text of the caller's reaches an answer unwritten.
  return text === undefined || text === String(parsed) || !JSON_NUMBER.test(text) ? parsed : new ExactNumberId(text, parsed);
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Whether the body's last member is `"id":` and then `id` as JavaScript writes it, then the closing brace:
 * that member is the top-level object's last, which JSON.parse keeps over any other `id`. The key opens
 * after `,` or `{` (never inside a string: `"x\"id":7}` is the key `x"id`).
 */
function endsOnId(body: string, id: number): boolean {
  let end = body.length;
  while (end > 0 && isJsonSpace(body.charCodeAt(end - 1))) end--;
  const member = `"id":${id}}`;
  const start = end - member.length;
  if (start < 1 || !body.startsWith(member, start)) return false;
  const before = body.charCodeAt(start - 1);
  return before === COMMA || before === OPEN_BRACE;
}

/**
 * A JSON-RPC envelope (request, result, error, an SSE frame's data) as JSON text, its id as the caller wrote it.
 * Every answer that carries a caller's id is written by this, not by JSON.stringify: an ExactNumberId written
 * otherwise would lose its digits again.
 */
export function jsonRpcText<E extends { readonly jsonrpc: '2.0'; readonly id: unknown }>(envelope: E): string {
  const { id } = envelope;
  if (!(id instanceof ExactNumberId)) return JSON.stringify(envelope);
  // Only the id is written by hand; the rest is JSON.stringify's, after it.
  const { jsonrpc: _jsonrpc, id: _id, ...rest } = envelope;
  const others = JSON.stringify(rest);
  return `{"jsonrpc":"2.0","id":${id.text}${others === '{}' ? '}' : `,${others.slice(1)}`}`;
}
