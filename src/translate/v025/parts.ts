import { withFields, partKind, type Part } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025Part } from '../../protocol/v025/index.js';
import { defined, isRecord, type JsonObject } from '../common.js';

/** Part metadata key holding the 1.0 `mediaType`/`filename` of text and data parts, which 0.2.5 cannot carry. */
export const PART_STASH_KEY = 'a2a_bridge';
/** a2a-js compat's flag for 1.0 data that was not an object and got wrapped as `{value: x}`. */
export const DATA_PART_COMPAT_KEY = 'data_part_compat';

interface Stashed {
  mediaType?: string;
  filename?: string;
}

function stash(metadata: JsonObject | undefined, fields: Stashed): JsonObject | undefined {
  const kept = defined(fields);
  if (Object.keys(kept).length === 0) return metadata;
  return withFields(metadata, { [PART_STASH_KEY]: kept });
}

function unstash(metadata: JsonObject | undefined): Stashed & { metadata?: JsonObject } {
  const saved = metadata?.[PART_STASH_KEY];
  if (!metadata || !isRecord(saved)) return defined({ metadata });
  const { [PART_STASH_KEY]: _, ...rest } = metadata;
  return defined({
    metadata: Object.keys(rest).length > 0 ? rest : undefined,
    mediaType: typeof saved.mediaType === 'string' ? saved.mediaType : undefined,
    filename: typeof saved.filename === 'string' ? saved.filename : undefined,
  });
}

/** ProtoJSON reads URL-safe or unpadded base64; 0.2.5 peers expect the standard alphabet with padding. */
export function toStandardBase64(value: string): string {
  const standard = value.replace(/-/g, '+').replace(/_/g, '/');
  const remainder = standard.length % 4;
  return remainder === 0 ? standard : standard + '='.repeat(4 - remainder);
}

/** A2A 1.0 part → 0.2.5 part (the profile may render url/data parts as text for text-only callers). */
export function partToV025(part: Part, profile: MappingProfile): V025Part {
  const kind = partKind(part);
  const target = profile.partKindsToV025[kind];
  const { metadata, mediaType, filename } = part;
  switch (kind) {
    case 'text':
      return defined({ kind: 'text', text: part.text ?? '', metadata: stash(metadata, { mediaType, filename }) });
    case 'raw':
      return defined({
        kind: 'file',
        file: defined({ bytes: toStandardBase64(part.raw ?? ''), mimeType: mediaType, name: filename }),
        metadata,
      });
    case 'url':
      if (target === 'text') return defined({ kind: 'text', text: part.url ?? '', metadata });
      return defined({ kind: 'file', file: defined({ uri: part.url ?? '', mimeType: mediaType, name: filename }), metadata });
    case 'data': {
      if (target === 'text') return defined({ kind: 'text', text: JSON.stringify(part.data ?? null), metadata });
      const kept = stash(metadata, { mediaType, filename });
      if (isRecord(part.data)) return defined({ kind: 'data', data: part.data, metadata: kept });
      return { kind: 'data', data: { value: part.data ?? null }, metadata: withFields(kept, { [DATA_PART_COMPAT_KEY]: true }) };
    }
  }
}

/** A2A 0.2.5 part → 1.0 part (bytes → raw, uri → url, name/mimeType → filename/mediaType). */
export function partToV1(part: V025Part, profile: MappingProfile): Part {
  const kinds = profile.partKindsFromV025;
  switch (part.kind) {
    case 'text': {
      const { metadata, mediaType, filename } = unstash(part.metadata);
      return defined({ [kinds.text]: part.text, mediaType, filename, metadata });
    }
    case 'file': {
      const { bytes, uri, mimeType, name } = part.file;
      const content = bytes !== undefined ? { [kinds['file-bytes']]: bytes } : { [kinds['file-uri']]: uri ?? '' };
      return defined(withFields(content, { mediaType: mimeType, filename: name, metadata: part.metadata }));
    }
    case 'data': {
      let data: unknown = part.data;
      let metadata = part.metadata;
      if (metadata?.[DATA_PART_COMPAT_KEY] === true) {
        if (Object.hasOwn(part.data, 'value')) data = part.data.value;
        const { [DATA_PART_COMPAT_KEY]: _, ...rest } = metadata;
        metadata = Object.keys(rest).length > 0 ? rest : undefined;
      }
      const restored = unstash(metadata);
      return defined({ [kinds.data]: data, ...restored });
    }
  }
}
