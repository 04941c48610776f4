import { z } from 'zod';
import { isRecord } from '../../model/json.js';
import { withFields } from '../../model/index.js';

export const V025JsonObject = z.record(z.string(), z.unknown());
export type V025JsonObject = z.infer<typeof V025JsonObject>;

/**
 * Leftovers of 0.1 that the 0.2.5 spec's own examples still show (§9.3): `type` instead of `kind` and
 * `file.data` instead of `file.bytes`. Accepted on input, never produced.
 */
function normalizeLegacyPart(value: unknown): unknown {
  if (!isRecord(value)) return value;
  let part = value;
  if (part.kind === undefined && typeof part.type === 'string') {
    const { type, ...rest } = part;
    part = withFields(rest, { kind: type });
  }
  const file = part.file;
  if (part.kind === 'file' && isRecord(file) && file.bytes === undefined && typeof file.data === 'string') {
    const { data, ...rest } = file;
    part = withFields(part, { file: withFields(rest, { bytes: data }) });
  }
  return part;
}

export const V025TextPart = z.looseObject({
  kind: z.literal('text'),
  text: z.string(),
  metadata: V025JsonObject.optional(),
});
export type V025TextPart = z.infer<typeof V025TextPart>;

export const V025FileContent = z
  .looseObject({
    bytes: z.string().optional(),
    uri: z.string().optional(),
    mimeType: z.string().optional(),
    name: z.string().optional(),
  })
  .refine((file) => (file.bytes === undefined) !== (file.uri === undefined), {
    message: 'file must have exactly one of bytes or uri',
  });
export type V025FileContent = z.infer<typeof V025FileContent>;

export const V025FilePart = z.looseObject({
  kind: z.literal('file'),
  file: V025FileContent,
  metadata: V025JsonObject.optional(),
});
export type V025FilePart = z.infer<typeof V025FilePart>;

export const V025DataPart = z.looseObject({
  kind: z.literal('data'),
  data: V025JsonObject,
  metadata: V025JsonObject.optional(),
});
export type V025DataPart = z.infer<typeof V025DataPart>;

export const V025Part = z.preprocess(normalizeLegacyPart, z.discriminatedUnion('kind', [V025TextPart, V025FilePart, V025DataPart]));
export type V025Part = V025TextPart | V025FilePart | V025DataPart;
