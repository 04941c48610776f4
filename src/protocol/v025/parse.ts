import type { z } from 'zod';
import { A2AError } from '../../model/index.js';
import { V025StreamEvent } from './objects.js';

/**
 * Validate what a 0.2.5 UPSTREAM sent. Its mistakes are not the caller's: they become -32006
 * (invalid agent response) naming the first bad field, never -32602.
 */
export function parseV025Response<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'invalid';
  throw A2AError.invalidAgentResponse(`The upstream agent sent an invalid ${what} (${where})`.slice(0, 300));
}

export function parseV025StreamEvent(value: unknown): V025StreamEvent {
  return parseV025Response(V025StreamEvent, value, 'stream event');
}
