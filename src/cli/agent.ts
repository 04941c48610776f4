import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Dispatcher } from 'undici';
import { CARD_PATH } from '../config/base-url.js';
import { AGENT_JSON_PATH } from '../upstream/v025/card.js';
import { UpstreamConfig } from '../config/schema.js';
import type { CallContext, Upstream } from '../core/agent-port.js';
import { upstreamFor } from '../upstream/connect.js';
import { detectUpstreamWithCard, type UpstreamBinding, type UpstreamProtocol } from '../upstream/detect.js';
import { withDispatchHeaders } from '../upstream/dispatch-headers.js';
import { createUpstreamPool } from '../upstream/http.js';
import { withFields } from '../model/index.js';
import { timedSignal } from '../timed-signal.js';

/** Options every command that talks to an agent takes. */
export const AGENT_OPTIONS = {
  protocol: { type: 'string', default: 'auto' },
  token: { type: 'string' },
  'api-key': { type: 'string' },
  'api-key-header': { type: 'string', default: 'X-API-KEY' },
  header: { type: 'string', multiple: true, default: [] },
  'timeout-ms': { type: 'string', default: '600000' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

/** The shared options' help; `json` says what --json prints, which each command decides. */
export const agentOptionsHelp = (json: string): string =>
  [
    '  --protocol P         auto (default: read the card), 1.0, 0.3 or 0.2.5',
    '  --token T            Authorization: Bearer T',
    '  --api-key K          an API key, sent in --api-key-header (default X-API-KEY, as Bailian sends it)',
    '  --header "N: V"      an extra request header (repeatable)',
    '  --timeout-ms N       bound on the whole call (default 600000)',
    `  --json               ${json}`,
  ].join('\n');

/** A command line a person got wrong: exit 2 with this message. */
export class UsageError extends Error {}

type Values = { [K in keyof typeof AGENT_OPTIONS]?: unknown };

/** node:util parseArgs with the shared options plus `extra`; its errors become UsageErrors. */
export function parseCommandLine<const E extends NonNullable<ParseArgsConfig['options']>>(argv: string[], extra: E) {
  try {
    return parseArgs({ args: argv, options: withFields(AGENT_OPTIONS, extra), allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
}

/** `--header "Name: value"` lines as a header map. */
export function headerPairs(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`--header "${line}" is not "Name: value"`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The agent URL argument: an http(s) URL, without a trailing slash. */
export function agentUrl(raw: string | undefined): string {
  if (!raw) throw new UsageError('missing the agent URL');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${raw} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${raw} is not an http(s) URL`);
  return raw.replace(/\/+$/, '');
}

/**
 * The agent URL of `call` and `card`: the base an agent's card is under, also when the card's own URL was
 * typed (`…/.well-known/agent.json`, what Bailian's console and agents' docs show), which would otherwise
 * be looked for under itself and reported missing.
 */
export function agentBaseUrl(raw: string | undefined): string {
  const typed = agentUrl(raw);
  const url = new URL(typed);
  if (!CARD_PATH.test(url.pathname)) return typed;
  url.pathname = url.pathname.replace(CARD_PATH, '');
  return url.href.replace(/\/+$/, '');
}

/**
 * Whether the URL typed is an agent's 0.2.5 card (`…/.well-known/agent.json`, the URL Bailian is given). Read from its
 * base, the 1.0 card comes first; when that one refuses the credentials (a gateway's 1.0 side, which takes no Bailian
 * key), the refusal names --protocol 0.2.5, which reads the card that was typed.
 */
export const typedV025Card = (raw: string): boolean => new URL(raw).pathname.replace(/\/+$/, '').endsWith(AGENT_JSON_PATH);

/** What a refusal of the 1.0 card, found by `auto`, adds for a 0.2.5 card typed (typedV025Card). */
export const TYPED_V025_CARD_HINT = ', or use the 0.2.5 card typed (--protocol 0.2.5)';

/** The upstream config the gateway's own clients take, from the shared options. */
export function clientConfig(values: Values): UpstreamConfig {
  const timeout = Number(values['timeout-ms']);
  if (!Number.isInteger(timeout) || timeout < 0) throw new UsageError('--timeout-ms must be a whole number of milliseconds');
  const parsed = UpstreamConfig.safeParse({
    protocol: values.protocol,
    'request-timeout-ms': timeout,
    auth: withFields(
      values.token ? { token: values.token } : {},
      values['api-key'] ? { 'api-key': values['api-key'], 'api-key-header': values['api-key-header'] } : {},
    ),
  });
  if (!parsed.success) throw new UsageError(`--protocol must be one of auto, 1.0, 0.3, 0.2.5`);
  return parsed.data;
}

export interface ConnectedAgent {
  upstream: Upstream;
  protocol: UpstreamProtocol;
  binding: UpstreamBinding;
  config: UpstreamConfig;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

/** Finds the agent's protocol (unless given) and opens the gateway's client for it. */
export async function connectAgent(url: string, values: Values): Promise<ConnectedAgent> {
  const config = clientConfig(values);
  const headers = headerPairs((values.header as string[] | undefined) ?? []);
  const pool = createUpstreamPool(config);
  const dispatcher = Object.keys(headers).length ? withDispatchHeaders(pool, () => headers) : pool;
  try {
    // The card the detection read goes to the client, whose call then does not read it again.
    const detected = await detectUpstreamWithCard(url, config, { dispatcher });
    const { protocol, binding } = detected;
    const upstream = upstreamFor(detected, url, config, dispatcher);
    return {
      upstream,
      protocol,
      binding,
      config,
      headers,
      dispatcher,
      close: async () => {
        await upstream.close();
        await pool.close();
      },
    };
  } catch (error) {
    await pool.close();
    throw error;
  }
}

/** A call context for one command: no principal, bounded by --timeout-ms and Ctrl-C. */
export function commandContext(config: UpstreamConfig): { ctx: CallContext; dispose(): void } {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onInterrupt);
  const { signal, clear } = timedSignal(controller.signal, config['request-timeout-ms']);
  return {
    ctx: { principal: '', signal },
    dispose: () => {
      clear();
      process.off('SIGINT', onInterrupt);
    },
  };
}
