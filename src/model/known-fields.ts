import type { z } from 'zod';
import { isRecord } from './json.js';

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** Each object schema's fields as a list, made once: walking the shape with Object.entries per value allocated on every request. */
const fieldLists = new WeakMap<Record<string, z.ZodType>, ReadonlyArray<readonly [string, z.ZodType]>>();

function fieldsOf(shape: Record<string, z.ZodType>): ReadonlyArray<readonly [string, z.ZodType]> {
  let fields = fieldLists.get(shape);
  if (!fields) {
    fields = Object.entries(shape);
    fieldLists.set(shape, fields);
  }
  return fields;
}

/**
 * `value` (already validated by `schema`) with only the fields the schema names, at every depth, as a
 * ProtoJSON parser reads a message: unknown fields are ignored, not kept. The model's objects are loose
 * so a caller's unknown field is never an error; this keeps it from reaching an upstream that rejects
 * unknown fields (iac-code's protobuf parser does). Maps (`metadata`, `data`) and unknown values stay whole.
 */
export function knownFields<T>(schema: z.ZodType<T>, value: T): T {
  return project(schema, value) as T;
}

function project(schema: z.ZodType, value: unknown): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      if (!isRecord(value) || !def.shape) return value;
      const known: Record<string, unknown> = {};
      for (const [key, field] of fieldsOf(def.shape)) {
        if (value[key] !== undefined) known[key] = project(field, value[key]);
      }
      return known;
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return def.innerType ? project(def.innerType, value) : value;
    case 'array':
      return Array.isArray(value) && def.element ? value.map((item) => project(def.element as z.ZodType, item)) : value;
    case 'pipe':
      return def.out ? project(def.out, value) : value;
    default:
      return value;
  }
}
