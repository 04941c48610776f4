import { isRecord, type JsonObject } from '../common.js';
import { withFields } from '../../model/index.js';

/**
 * Bailian's extensions of A2A 0.2.5 (help.aliyun.com/zh/model-studio/multimodal-integration-a2a-protocol
 * and -intent). Inbound, Bailian adds client facts to `message.metadata`; outbound, an agent sends
 * device commands in `metadata.commands` of the LAST artifact of its answer.
 */

/** The protocol extension's document URI, which a card declares in capabilities.extensions (zh and en pages). */
export const BAILIAN_PROTOCOL_EXTENSION_URIS = [
  'https://help.aliyun.com/zh/model-studio/multimodal-integration-a2a-protocol',
  'https://help.aliyun.com/en/model-studio/multimodal-integration-a2a-protocol',
] as const;

/** message.metadata fields of the protocol extension (user … chatId) and of the intent extension (intentInfos). */
export const BAILIAN_EXTENSION_FIELDS = [
  'user',
  'device',
  'location',
  'userDefinedParams',
  'commandResults',
  'images',
  'chatId',
  'intentInfos',
] as const;

/**
 * Bailian's extension fields of an inbound message's metadata, moved intact under `key`, so a 1.0
 * upstream finds them in one namespace (merged into an object already there). Other keys stay as they are.
 */
export function nestExtensionMetadata(metadata: JsonObject | undefined, key: string): JsonObject | undefined {
  if (!metadata) return metadata;
  const found = BAILIAN_EXTENSION_FIELDS.filter((field) => Object.hasOwn(metadata, field) && field !== key);
  if (found.length === 0) return metadata;
  const rest: JsonObject = {};
  for (const [name, value] of Object.entries(metadata)) if (!(found as string[]).includes(name)) rest[name] = value;
  const existing = isRecord(metadata[key]) ? metadata[key] : {};
  const nested: JsonObject = { ...existing };
  for (const field of found) nested[field] = metadata[field];
  return withFields(rest, { [key]: nested });
}

/** Device commands in a piece of upstream metadata: `metadata.commands` and `metadata[key].commands`. */
export function commandsIn(metadata: JsonObject | undefined, key: string): unknown[] {
  if (!metadata) return [];
  const direct: unknown[] = Array.isArray(metadata.commands) ? metadata.commands : [];
  const namespace = metadata[key];
  const nested: unknown[] = isRecord(namespace) && Array.isArray(namespace.commands) ? namespace.commands : [];
  return [...direct, ...nested];
}

/** The metadata without its commands (both places), or undefined when nothing else is left. */
export function withoutCommands(metadata: JsonObject | undefined, key: string): JsonObject | undefined {
  if (!metadata) return metadata;
  const { commands: _direct, ...rest } = metadata;
  const namespace = rest[key];
  if (isRecord(namespace) && Object.hasOwn(namespace, 'commands')) {
    const { commands: _nested, ...inner } = namespace;
    if (Object.keys(inner).length > 0) rest[key] = inner;
    else delete rest[key];
  }
  return Object.keys(rest).length > 0 ? rest : undefined;
}
