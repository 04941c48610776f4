import { withFields } from '../../model/index.js';
import { isRecord } from '../../model/json.js';
import { PART_STASH_KEY } from '../../translate/index.js';
import { FACADE_LANGUAGES, type FacadeLanguage } from './reply/words.js';

/**
 * What a 0.2.5 caller reads, without the gateway's own metadata: `metadata.a2a_bridge` of a part holds a 1.0 part's
 * `mediaType`/`filename`, which 0.2.5 text and data parts cannot carry (translate/v025/parts.ts), so that they
 * come back from a 0.2.5 agent the gateway sent them to. A caller has no use for it (a 1.0 caller never sees it:
 * its parts carry those fields), and it would read as the agent's own metadata. The same goes for the language the
 * gateway asks iac-code to write in on the user's message (upstream/iac-code/preferred-language.ts).
 */
export function withoutGatewayMetadata<T>(result: T): T {
  if (!isRecord(result)) return result;
  let changed: Record<string, unknown> | undefined;
  const set = (key: string, value: unknown): void => {
    if (value !== result[key]) (changed ??= { ...result })[key] = value;
  };
  if (result.role === 'user' && isRecord(result.metadata)) set('metadata', withoutAskedLanguage(result.metadata));
  if (Array.isArray(result.parts)) set('parts', partsWithout(result.parts));
  for (const key of ['status', 'message', 'artifact']) if (isRecord(result[key])) set(key, withoutGatewayMetadata(result[key]));
  for (const key of ['history', 'artifacts']) {
    const list = result[key];
    if (Array.isArray(list)) set(key, mapped(list, withoutGatewayMetadata));
  }
  if (changed && changed.metadata === undefined) delete changed.metadata;
  return (changed ?? result) as T;
}

/**
 * A user message's metadata without the `iac_code.preferredLanguage` the gateway put there. The message iac-code
 * keeps does not say who put it, so one of the facade's own languages is taken as the gateway's: a caller who
 * asked for that language itself sent what the gateway would have sent, and has no need to read it back.
 */
function withoutAskedLanguage(metadata: Record<string, unknown>): Record<string, unknown> | undefined {
  const iacCode = metadata.iac_code;
  if (!isRecord(iacCode) || askedLanguage(metadata) === undefined) return metadata;
  const { preferredLanguage: _asked, ...settings } = iacCode;
  const { iac_code: _all, ...rest } = metadata;
  const left = Object.keys(settings).length > 0 ? withFields(rest, { iac_code: settings }) : rest;
  return Object.keys(left).length > 0 ? left : undefined;
}

/** The facade language the gateway asked iac-code to write a user message's turn in (read as withoutAskedLanguage reads it). */
export function askedLanguage(metadata: Record<string, unknown> | undefined): FacadeLanguage | undefined {
  const asked = isRecord(metadata?.iac_code) ? metadata.iac_code.preferredLanguage : undefined;
  return (FACADE_LANGUAGES as readonly unknown[]).includes(asked) ? (asked as FacadeLanguage) : undefined;
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
