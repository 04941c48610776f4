import type { z } from 'zod';
import { A2AError, type FieldViolation } from './errors.js';

/** Parse with a zod schema, or throw -32602 naming every offending field. */
export function parseParams<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const violations: FieldViolation[] = result.error.issues.slice(0, 20).map((issue) => ({
    field: issue.path.map(String).join('.') || '(root)',
    description: issue.message,
  }));
  const first = violations[0];
  const summary = first ? `Invalid params: ${first.field}: ${first.description}` : 'Invalid params';
  throw A2AError.invalidParams(summary.slice(0, 300), violations);
}
