import type { Context } from 'hono';
import type { GatewayEnv, RequestLogFields } from './env.js';

/** Adds fields to the request log line, when the app composer installed one (tests may not). */
export function noteLog(c: Context<GatewayEnv>, fields: RequestLogFields): void {
  const target = c.get('logFields') as RequestLogFields | undefined;
  if (!target) return;
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
}
