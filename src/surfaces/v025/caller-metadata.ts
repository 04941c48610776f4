import { withFields } from '../../model/index.js';
import { isRecord } from '../../model/json.js';
import { PART_STASH_KEY } from '../../translate/index.js';

/**
 * What a 0.2.5 caller reads, without the gateway's own part metadata: `metadata.a2a_bridge` holds a 1.0 part's
 * `mediaType`/`filename`, which 0.2.5 text and data parts cannot carry (translate/v025/parts.ts), so that they
 * come back from a 0.2.5 agent the gateway sent them to. A caller has no use for it (a 1.0 caller never sees it:
 * its parts carry those fields), and it would read as the agent's own metadata.
 */
export function withoutGatewayMetadata<T>(result: T): T {
  if (!isRecord(result)) return result;
  let changed: Record<string, unknown> | undefined;
  const set = (key: string, value: unknown): void => {
    if (value !== result[key]) (changed ??= { ...result })[key] = value;
  };
  if (Array.isArray(result.parts)) set('parts', partsWithout(result.parts));
  for (const key of ['status', 'message', 'artifact']) if (isRecord(result[key])) set(key, withoutGatewayMetadata(result[key]));
  for (const key of ['history', 'artifacts']) {
    const list = result[key];
    if (Array.isArray(list)) set(key, mapped(list, withoutGatewayMetadata));
  }
  return (changed ?? result) as T;
}

function partsWithout(parts: unknown[]): unknown[] {
  return mapped(parts, (part) => {
    if (!isRecord(part) || !isRecord(part.metadata) || !Object.hasOwn(part.metadata, PART_STASH_KEY)) return part;
    const { [PART_STASH_KEY]: _stash, ...metadata } = part.metadata;
    const { metadata: _all, ...rest } = part;
    return Object.keys(metadata).length > 0 ? withFields(rest, { metadata }) : rest;
  });
}

/** `list` with `change` applied to each item; the same array when nothing changed. */
function mapped(list: unknown[], change: (item: unknown) => unknown): unknown[] {
  let out: unknown[] | undefined;
  list.forEach((item, at) => {
    const next = change(item);
    if (next !== item) (out ??= [...list])[at] = next;
  });
  return out ?? list;
}
