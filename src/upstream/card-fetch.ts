import { request, type Dispatcher } from 'undici';
import { decodedBody } from './decoded-body.js';
import { withFields } from '../model/index.js';

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

function boundedSignal(timeoutMs: number, signal?: AbortSignal): AbortSignal | undefined {
  const bound = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
  return signal && bound ? AbortSignal.any([signal, bound]) : (signal ?? bound);
}

/**
 * GET a JSON document (agent cards, the 0.2.5 extended card). Transport failures are thrown as they
 * come; the caller decides what they mean. Redirects are not followed: a card is where the agent says.
 */
export async function getJson(url: string, options: JsonGetOptions): Promise<JsonGetResult> {
  const signal = boundedSignal(options.timeoutMs, options.signal);
  const response = await request(url, {
    dispatcher: options.dispatcher,
    method: 'GET',
    headers: withFields(options.headers, { accept: 'application/json', 'accept-encoding': 'identity' }),
    ...(signal ? { signal } : {}),
  });
  const text = await decodedBody(response).text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, body };
}
