import type { Context } from 'hono';
import type { GatewayEnv, RequestLogFields } from './env.js';

/** Adds fields to the request log line, when the app composer installed one (tests may not). */
export function noteLog(c: Context<GatewayEnv>, fields: RequestLogFields): void {
  const target = c.get('logFields') as Record<string, unknown> | undefined;
  if (!target) return;
  // for-in, not Object.entries: this runs a few times per request.
  for (const key in fields) {
    const value = (fields as Record<string, unknown>)[key];
    if (value !== undefined) target[key] = value;
  }
}
