import { rootCertificates } from 'node:tls';
import { Client } from 'undici';
import { withFields } from '../model/index.js';
import { pinnedLookup } from '../push/dispatch.js';
import { resolveAndPin, validateCallbackUrl, type LookupFunction } from '../push/url-policy.js';
import { timedSignal } from '../timed-signal.js';

export interface GuardedGetOptions {
  /** Private, loopback and metadata addresses allowed (the operator's own network). */
  allowPrivate: boolean;
  /** Bound of the whole fetch, redirects included. */
  timeoutMs: number;
  /** Largest body read; a larger one fails the fetch. */
  maxBytes: number;
  accept: string;
  /** Redirects followed, each one checked like the first URL; default none. */
  maxRedirects?: number;
  /** The caller's own signal: the caller left. */
  signal?: AbortSignal;
  lookup?: LookupFunction;
  /** A private CA trusted beside the public roots. */
  ca?: Buffer;
  /** Sent as a POST with these headers instead of a GET (redirects are then never followed). */
  post?: { body: string; headers: Record<string, string> };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET a URL that came from outside (a key server named in config, an image a user attached) under the
 * push callback rules: http(s) only, no credentials in the URL, no private or local host unless
 * allowed, one DNS resolution whose checked address is the one connected to (no rebinding window), a
 * bounded body and time: the body's bytes. Throws an Error whose message says what went wrong, never the body.
 */
export async function guardedGet(raw: string, options: GuardedGetOptions): Promise<Buffer> {
  const { signal, clear } = timedSignal(options.signal, options.timeoutMs);
  try {
    let url = raw;
    for (let redirects = 0; ; redirects++) {
      const answer = await getOnce(url, options, signal);
      if (Buffer.isBuffer(answer)) return answer;
      if (options.post || redirects >= (options.maxRedirects ?? 0)) throw new Error(`the URL answered HTTP ${answer.status}`);
      url = answer.location;
    }
  } finally {
    clear();
  }
}

/** A JSON answer of guardedGet's; `what` names it in the error when the body is not JSON. */
function parsedJson(body: Buffer, what: string): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new Error(`${what} is not JSON`);
  }
}

/** A form POSTed under guardedGet's rules (an OAuth endpoint's): its parsed JSON answer. */
export async function guardedPostJson(
  raw: string,
  post: NonNullable<GuardedGetOptions['post']>,
  options: GuardedGetOptions,
  what: string,
): Promise<unknown> {
  return parsedJson(await guardedGet(raw, withFields(options, { post })), what);
}

/**
 * A JSON document fetched by guardedGet: its parsed body. `what` names it in the error when the body is
 * not JSON ("the JWKS", "the OpenID configuration"); the body itself is never in a message.
 */
export async function guardedGetJson(raw: string, options: GuardedGetOptions, what: string): Promise<unknown> {
  return parsedJson(await guardedGet(raw, options), what);
}

type Hop = Buffer | { status: number; location: string };

/** The policy's refusals speak of push callbacks, where they were first written; here it is any URL. */
async function checked<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new Error(error instanceof Error ? error.message.replace(/^A2A push callback URL/, 'the URL') : 'the URL was refused');
  }
}

async function getOnce(raw: string, options: GuardedGetOptions, signal: AbortSignal): Promise<Hop> {
  const url = await checked(() => validateCallbackUrl(raw, options));
  const lookup = options.lookup ? { lookup: options.lookup } : {};
  const pin = await checked(() => resolveAndPin(url, { allowPrivate: options.allowPrivate, signal, ...lookup }));
  const client = new Client(url.origin, {
    connect: {
      lookup: pinnedLookup(pin),
      timeout: options.timeoutMs,
      // Beside, not instead of, the public roots: the server may as well be a public one.
      ...(options.ca ? { ca: [...rootCertificates, options.ca.toString('utf8')] } : {}),
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  try {
    const response = await client.request({
      path: `${url.pathname}${url.search}`,
      signal,
      ...(options.post
        ? { method: 'POST', headers: withFields(options.post.headers, { accept: options.accept }), body: options.post.body }
        : { method: 'GET', headers: { accept: options.accept } }),
    });
    const location = response.headers.location;
    if (REDIRECTS.has(response.statusCode) && typeof location === 'string') {
      await response.body.dump().catch(() => undefined);
      return { status: response.statusCode, location: new URL(location, url).href };
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      throw new Error(`the URL answered HTTP ${response.statusCode}`);
    }
    const declared = Number(response.headers['content-length']);
    if (declared > options.maxBytes) throw new Error(`the answer is larger than ${options.maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > options.maxBytes) throw new Error(`the answer is larger than ${options.maxBytes} bytes`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } finally {
    await client.destroy().catch(() => undefined);
  }
}
