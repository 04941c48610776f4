import type { Dispatcher } from 'undici';
import { decodedBody } from './decoded-body.js';
import { requestUntilAborted } from './abortable-request.js';
import { withFields } from '../model/index.js';
import { timedSignal } from '../timed-signal.js';

export interface JsonGetOptions {
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  /** Whole-request bound in ms; 0 disables it. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface JsonGetResult {
  status: number;
  /** The parsed body, or undefined when it is not JSON. */
  body: unknown;
}

/**
 * GET a JSON document (agent cards, the 0.2.5 extended card). Transport failures are thrown as they
 * come; the caller decides what they mean. Redirects are not followed: a card is where the agent says.
 */
export async function getJson(url: string, options: JsonGetOptions): Promise<JsonGetResult> {
  const bound = options.timeoutMs > 0 ? timedSignal(options.signal, options.timeoutMs) : undefined;
  const signal = bound?.signal ?? options.signal;
  let text: string;
  let status: number;
  try {
    // Answered at the time bound even while queued for a connection; the URL is parsed here, not cached as
    // requestOn's are: pipeline-state reads carry a query string per task.
    const { origin, pathname, search } = new URL(url);
    const response = await requestUntilAborted(options.dispatcher, {
      origin,
      path: `${pathname}${search}`,
      method: 'GET',
      headers: withFields(options.headers, { accept: 'application/json', 'accept-encoding': 'identity' }),
      ...(signal ? { signal } : {}),
    });
    status = response.statusCode;
    text = await decodedBody(response).text();
  } finally {
    bound?.clear();
  }
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = undefined;
  }
  return { status, body };
}
