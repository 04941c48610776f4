/** Small helpers shared by the translators (no I/O). */

export { isRecord, type JsonObject } from '../model/json.js';

/**
 * Drop keys whose value is undefined: the wire objects are compared and serialised as written, and
 * ProtoJSON emitters leave unset fields out rather than writing null.
 */
export function defined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  // Keys, not entries: no [key, value] array per field on a path that runs for every event.
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = field;
  }
  return out as T;
}

/** Clock for timestamps a translator has to add; injectable so tests stay deterministic. */
export type Clock = () => string;

let clockMs = Number.NaN;
let clockIso = '';
/** Now, in ISO 8601. Formatted once per millisecond: formatting costs about 1 µs, and a turn asks several times. */
export const systemClock: Clock = () => {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    clockIso = new Date(now).toISOString();
  }
  return clockIso;
};

/** The text of a message's text parts, joined as a 0.2.5/1.0 client would show it. */
export function joinText(parts: readonly { text?: unknown }[] | undefined): string {
  let text = '';
  for (const part of parts ?? []) if (typeof part.text === 'string') text += part.text;
  return text;
}

export const hasTextPart = (parts: readonly { text?: unknown }[] | undefined): boolean => (parts ?? []).some((part) => typeof part.text === 'string');
