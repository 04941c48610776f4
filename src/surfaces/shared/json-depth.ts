import { A2AError } from '../../model/index.js';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../../protocol/json-codes.js';

/**
 * Nesting the gateway accepts in a request body, like protobuf's JSON parsers (the 1.0 wire objects
 * are protobuf messages). JSON.parse itself copes with any depth, but JSON.stringify, structuredClone
 * and every recursive walk after it overflow the stack somewhere past a few thousand levels.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether `json` (text JSON.parse already accepted) nests arrays and objects deeper than `max`.
 * One pass over the text, jumping over strings with indexOf, so long text parts cost next to nothing.
 */
export function nestedDeeperThan(json: string, max: number = MAX_JSON_DEPTH): boolean {
  // Deeper than max needs more than max openers and as many closers.
  if (json.length <= 2 * max) return false;
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const char = json.charCodeAt(i);
    if (char === QUOTE) {
      for (;;) {
        i = json.indexOf('"', i + 1);
        if (i < 0) return false;
        let backslashes = 0;
        while (json.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
      }
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) depth--;
  }
  return false;
}

/** -32600 for a body nested deeper than MAX_JSON_DEPTH. */
export const tooDeeplyNested = (): A2AError => A2AError.invalidRequest(`Invalid request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);

/**
 * The same for a value already decoded (a gRPC request as ProtoJSON): whether its arrays and objects nest
 * deeper than `max`. The walk stops at `max + 1` levels, so it never recurses deeper than that.
 */
export function valueNestedDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth + 1 > max) return true;
  for (const inner of Array.isArray(value) ? value : Object.values(value)) if (valueNestedDeeperThan(inner, max, depth + 1)) return true;
  return false;
}
