import type { Dispatcher } from 'undici';
import { withFields } from '../model/index.js';

type Headers = Dispatcher.DispatchOptions['headers'];

/** `given` (an object or undici's flat [name, value, ...] array) with `extra` set over it, names compared case-insensitively. */
export function mergeHeaders(given: Headers, extra: Record<string, string>): Record<string, string | string[]> {
  const replaced = new Set(Object.keys(extra).map((name) => name.toLowerCase()));
  const out: Record<string, string | string[]> = {};
  const keep = (name: string, value: unknown) => {
    if (value === undefined || value === null || replaced.has(name.toLowerCase())) return;
    out[name] = Array.isArray(value) ? value.map((item) => String(item)) : typeof value === 'string' ? value : JSON.stringify(value);
  };
  if (Array.isArray(given)) for (let i = 0; i + 1 < given.length; i += 2) keep(String(given[i]), given[i + 1]);
  else if (given && typeof given === 'object') for (const [name, value] of Object.entries(given)) keep(name, value);
  return withFields(out, extra);
}

/** A dispatcher adding the headers `extra()` returns (at dispatch time) to every request of `base`. */
export function withDispatchHeaders(base: Dispatcher, extra: () => Record<string, string> | undefined): Dispatcher {
  return base.compose((dispatch) => (options, handler) => {
    const headers = extra();
    if (!headers || Object.keys(headers).length === 0) return dispatch(options, handler);
    return dispatch(withFields(options, { headers: mergeHeaders(options.headers, headers) }), handler);
  });
}
