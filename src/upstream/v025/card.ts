import { withFields, A2AError, ErrorCode } from '../../model/index.js';
import { withCause } from '../../model/error-cause.js';
import { V03_AGENT_CARD_PATH } from '../../protocol/v03/index.js';
import { V025_AGENT_CARD_PATH, V025AgentCard, parseV025Response } from '../../protocol/v025/index.js';
import { cardFromV025 } from '../../translate/index.js';
import { getJson, type JsonGetOptions } from '../card-fetch.js';
import type { WarningLogger } from '../../throttled-warnings.js';
import { cardAddressWarnings, type CardAddressNotice } from '../card-address.js';
import { credentialsRefused, refusesCredentials } from '../upstream-errors.js';
import { jsonRpcEndpoint, untilAborted } from '../v1/client.js';
import { classifyCard } from '../card-protocol.js';
import { isRecord } from '../../model/json.js';
import { withoutUrlCredentials } from '../../url-credentials.js';

/** The two JSON-RPC dialects before 1.0: identical on the wire except for the extended card. */
export type V025Dialect = '0.2.5' | '0.3';

export const AGENT_JSON_PATH = V025_AGENT_CARD_PATH;
export const AGENT_CARD_JSON_PATH = V03_AGENT_CARD_PATH;

/** 0.2.5 serves agent.json, 0.3 agent-card.json; either may serve both, so the other is the fallback. */
export function v025CardPaths(dialect: V025Dialect): string[] {
  return dialect === '0.3' ? [AGENT_CARD_JSON_PATH, AGENT_JSON_PATH] : [AGENT_JSON_PATH, AGENT_CARD_JSON_PATH];
}

/**
 * The agent's own 0.2.5/0.3 card, validated (a malformed card is -32006). Sent without A2A-Version:
 * a 1.0 server with 0.3 compat answers a header-less request with its 0.3-shaped card.
 */
export async function fetchV025Card(baseUrl: string, dialect: V025Dialect, options: JsonGetOptions): Promise<V025AgentCard> {
  let lastStatus = 0;
  for (const path of v025CardPaths(dialect)) {
    const { status, body } = await getJson(`${baseUrl}${path}`, options);
    if (status === 200 && body !== undefined) return parsedCard(body, `${baseUrl}${path}`, dialect);
    lastStatus = status;
  }
  if (refusesCredentials(lastStatus)) {
    throw credentialsRefused(lastStatus, `The upstream agent refused the gateway's credentials for its card (HTTP ${lastStatus}; upstream.auth)`);
  }
  throw new A2AError(
    ErrorCode.Internal,
    `Upstream agent card is unavailable (HTTP ${lastStatus})`,
    lastStatus > 0 ? { agentHttpStatus: lastStatus } : {},
  );
}

/**
 * The card read at `url`, validated. A card of another version keeps the error a caller reads (-32006) and
 * gains, for the operator's log (failure-cause.ts), what is wrong in their terms and the setting that fixes it:
 * zod's `url: expected string` says nothing of an `upstream.protocol` that names the wrong version.
 */
function parsedCard(body: unknown, url: string, dialect: V025Dialect): V025AgentCard {
  try {
    return parseV025Response(V025AgentCard, body, 'agent card');
  } catch (error) {
    if (!(error instanceof A2AError)) throw error;
    const where = `the card at ${withoutUrlCredentials(url)}`;
    const speaks = classifyCard(body, url.endsWith(AGENT_JSON_PATH) ? 'agent.json' : 'agent-card.json');
    if (speaks !== '1.0' || !isRecord(body)) throw withCause(error, new Error(`${where} is not a valid ${dialect} card: ${error.message}`));
    const sign = 'supportedInterfaces' in body ? 'it has supportedInterfaces' : `its protocolVersion is ${String(body.protocolVersion)}`;
    throw withCause(error, new Error(`${where} is not a ${dialect} card (${sign}: a 1.0 card); set upstream.protocol to auto or 1.0`));
  }
}

/** The JSON-RPC endpoint a 0.2.5 card advertises (`url`, or a JSONRPC additional interface), reachable from here (usableUrl). */
export function v025Endpoint(card: V025AgentCard, baseUrl: string, notice?: CardAddressNotice): string {
  return jsonRpcEndpoint(cardFromV025(card), `${baseUrl}/`, notice);
}

const EXTENDED_CARD = 'agent/authenticatedExtendedCard';

/**
 * Where a 0.2.5 agent may serve its authenticated extended card, most likely first: under `{url}/`
 * (the spec's example and the Python SDK), at `{url}/../` (the spec's prose), and next to the
 * well-known card (agents mounted at the root). The caller moves on only when one answers 404.
 */
export function extendedCardUrls(endpoint: string, baseUrl: string): string[] {
  const dir = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  const candidates = [new URL(EXTENDED_CARD, dir), new URL(`../${EXTENDED_CARD}`, dir), new URL(EXTENDED_CARD, `${baseUrl}/`)];
  return [...new Set(candidates.map((url) => url.toString()))];
}

export interface V025CardCache {
  /** Fetch the card now; remembers it and its endpoint. Failures are A2AErrors. */
  load(signal?: AbortSignal): Promise<V025AgentCard>;
  /** The JSON-RPC endpoint; before the first card, one fetch shared by every caller waiting for it. */
  endpoint(signal: AbortSignal): Promise<string>;
  current(): { card: V025AgentCard; endpoint: string } | undefined;
  /** Told once per loopback address a card gives that is not where the gateway reaches the agent (card-address.ts). */
  readonly notice: CardAddressNotice;
}

/** The card the protocol detection read (DetectedWithCard.card) with its endpoint, when it is a valid card; else undefined. */
function startingCard(handed: unknown, baseUrl: string, notice: CardAddressNotice): { card: V025AgentCard; endpoint: string } | undefined {
  if (handed === undefined) return undefined;
  try {
    const card = parseV025Response(V025AgentCard, handed, 'agent card');
    return { card, endpoint: v025Endpoint(card, baseUrl, notice) };
  } catch {
    return undefined;
  }
}

/**
 * The upstream's card and endpoint, shared by the 0.2.5 client and the pass-through; `handed`, a card the
 * detection just read the way this cache reads it, which the first call then takes instead of fetching it again.
 */
export function createV025CardCache(
  baseUrl: string,
  dialect: V025Dialect,
  options: Omit<JsonGetOptions, 'signal'>,
  logger?: WarningLogger,
  cardOrigins?: readonly string[],
  handed?: unknown,
): V025CardCache {
  const notice = cardAddressWarnings(logger, baseUrl, cardOrigins);
  let current: { card: V025AgentCard; endpoint: string } | undefined = startingCard(handed, baseUrl, notice);
  let inFlight: Promise<V025AgentCard> | undefined;
  // Read through a function: a closure assignment during an await is invisible to narrowing.
  const snapshot = () => current;

  async function load(signal?: AbortSignal): Promise<V025AgentCard> {
    try {
      const card = await fetchV025Card(baseUrl, dialect, withFields(options, signal ? { signal } : {}));
      current = { card, endpoint: v025Endpoint(card, baseUrl, notice) };
      return card;
    } catch (error) {
      // Why (a refused connection, DNS, TLS) stays for the operator's log (failure-cause.ts).
      throw error instanceof A2AError ? error : withCause(A2AError.internal('Upstream agent card is unavailable'), error);
    }
  }

  return {
    load,
    async endpoint(signal) {
      if (current) return current.endpoint;
      if (!inFlight) {
        inFlight = load().finally(() => {
          inFlight = undefined;
        });
        // Every waiter may have given up already; the failure is theirs to see, not an unhandled rejection.
        inFlight.catch(() => undefined);
      }
      await untilAborted(inFlight, signal);
      return snapshot()?.endpoint ?? baseUrl;
    },
    current: snapshot,
    notice,
  };
}
