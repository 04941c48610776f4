import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

/**
 * A2A 1.0 Part: exactly one of text / raw / url / data, plus optional
 * mediaType, filename and metadata on every kind (proto oneof `content`).
 */
export const Part = z
  .looseObject({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    mediaType: z.string().optional(),
    filename: z.string().optional(),
    metadata: JsonObject.optional(),
  })
  .superRefine((part, ctx) => {
    const present = (['text', 'raw', 'url', 'data'] as const).filter((key) => part[key] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          present.length === 0
            ? 'part must have one of text, raw, url or data'
            : `part must have exactly one of text, raw, url or data (found ${present.join(', ')})`,
      });
    }
  });
export type Part = z.infer<typeof Part>;

export type PartKind = 'text' | 'raw' | 'url' | 'data';

export function partKind(part: Part): PartKind {
  if (part.text !== undefined) return 'text';
  if (part.raw !== undefined) return 'raw';
  if (part.url !== undefined) return 'url';
  return 'data';
}

export { JsonObject };
