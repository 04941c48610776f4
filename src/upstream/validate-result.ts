import type { z } from 'zod';
import { A2AError } from '../model/index.js';

/** Where an issue points; for a union, the branch that got furthest (e.g. `task.id`, not the root). */
function issuePath(issue: z.core.$ZodIssue | undefined): PropertyKey[] {
  if (!issue) return [];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue.path;
  const deepest = issue.errors.map((branch) => issuePath(branch[0])).sort((a, b) => b.length - a.length)[0] ?? [];
  return [...issue.path, ...deepest];
}

/** Validate what a 1.0 upstream answered; the first offending field is named (never its value), as -32006. */
export function validateResult<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const field = issuePath(parsed.error.issues[0]).map(String).join('.');
  throw A2AError.invalidAgentResponse(`The upstream agent returned an invalid ${what}${field ? ` (at ${field})` : ''}`);
}

/**
 * What an answer must be: its schema, optionally a hand-written check (well-formed.ts) that accepts only
 * what the schema accepts unchanged, and optionally a repair of what an agent may send that the schema
 * refuses though it can be carried (messages and artifacts without parts: empty-parts.ts).
 */
export interface ResultCheck<T> {
  schema: z.ZodType<T>;
  isWellFormed?: (value: unknown) => value is T;
  repair?: (value: unknown) => unknown;
}

/**
 * `value` as is when the hand-written check passes it (sparing the common answer zod's copy), else
 * repaired, then checked again and, failing that, validated by zod (which names the offending field).
 */
export function checkedResult<T>(check: ResultCheck<T>, value: unknown, what: string): T {
  if (check.isWellFormed?.(value)) return value;
  const repaired = check.repair ? check.repair(value) : value;
  return check.isWellFormed?.(repaired) ? repaired : validateResult(check.schema, repaired, what);
}
