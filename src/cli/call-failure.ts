import type { UpstreamConfig } from '../config/schema.js';
import { A2AError, withFields } from '../model/index.js';
import { getJson } from '../upstream/card-fetch.js';
import type { UpstreamBinding } from '../upstream/detect.js';
import { grpcRefusalName } from '../upstream/v1/grpc-errors.js';
import { createUpstreamPool, credentialHeaders } from '../upstream/http.js';
import { neverReached } from '../upstream/never-reached.js';
import { AGENT_CARD_JSON_PATH, AGENT_JSON_PATH } from '../upstream/v025/card.js';
import { TYPED_V025_CARD_HINT } from './agent.js';
import { EXIT_NEEDS_INPUT, EXIT_UNREACHABLE, isCredentialsRefused, oneLine } from './exit-codes.js';
import { turnFailureText, type TurnTarget } from './turn-failure.js';

/** The probe runs after a failure that may have taken the whole --timeout-ms already: it waits less. */
const PROBE_TIMEOUT_MS = 10_000;

/** Where `call` failed: finding the protocol (auto), reading the card once the protocol is known, or the turn. */
export type CallStage = 'detect' | 'card' | 'turn';

export interface CallFailure {
  text: string;
  code: number;
}

/** Where a client of this protocol reads the agent's card first (auto starts with the 1.0 one). */
export const cardUrlFor = (url: string, protocol: UpstreamConfig['protocol']): string =>
  `${url}${protocol === '0.2.5' ? AGENT_JSON_PATH : AGENT_CARD_JSON_PATH}`;

/** The card URL answered, with this status, or could not be reached at all, for this reason. */
type CardProbe = { cardUrl: string; status: number } | { cardUrl: string; unreachable: string } | { cardUrl: string; undecided: true };

/**
 * One GET of the agent's card, to tell why reading it failed. The gateway's clients report any failure to
 * read a card as one A2A error ("Upstream agent card is unavailable"), which reads as the agent's fault
 * when its address was never reached (connection refused, a host name that does not resolve).
 */
async function probeCard(url: string, config: UpstreamConfig, headers: Record<string, string>): Promise<CardProbe> {
  const cardUrl = cardUrlFor(url, config.protocol);
  const dispatcher = createUpstreamPool(config);
  const timeout = config['request-timeout-ms'];
  try {
    const answer = await getJson(cardUrl, {
      dispatcher,
      // As `card` asks: A2A-Version only where a 1.0 card is read (a 0.3 agent's agent-card.json is asked without).
      headers: withFields(
        withFields(credentialHeaders(config.auth), headers),
        config.protocol === '0.2.5' || config.protocol === '0.3' ? {} : { 'a2a-version': '1.0' },
      ),
      timeoutMs: timeout > 0 ? Math.min(timeout, PROBE_TIMEOUT_MS) : PROBE_TIMEOUT_MS,
    });
    return { cardUrl, status: answer.status };
  } catch (error) {
    return neverReached(error) ? { cardUrl, unreachable: oneLine(error) } : { cardUrl, undecided: true };
  } finally {
    await dispatcher.close();
  }
}

/** A refusal of the call: of the credentials sent, or, with none sent, the agent asking for them. */
const refused = (status: number, sent: boolean, hint = ''): CallFailure => ({
  text: sent
    ? `the agent refused the call (HTTP ${status}): give it credentials with --token, --api-key or --header${hint}`
    : `the agent needs credentials for the call (HTTP ${status}): give them with --token, --api-key or --header${hint}`,
  code: EXIT_NEEDS_INPUT,
});

/**
 * A gRPC agent's refusal, told by the client in the HTTP status the other bindings say it with: named by its gRPC
 * status. --header goes on the HTTP requests (the card) only, so only the credentials sent as metadata are named,
 * and only those count as sent.
 */
const refusedOverGrpc = (status: 401 | 403, sent: boolean): CallFailure => ({
  text: sent
    ? `the agent refused the call (gRPC ${grpcRefusalName(status)}): give it credentials with --token or --api-key (sent as gRPC metadata)`
    : `the agent needs credentials for the call (gRPC ${grpcRefusalName(status)}): give them with --token or --api-key (sent as gRPC metadata)`,
  code: EXIT_NEEDS_INPUT,
});

/** HTTP 503 for the card: the agent (an a2a-bridge whose own agent is not reached yet, say) is up but not ready. */
export const NOT_READY = 503;

/** An agent up but not ready, rather than "no agent card", which reads as if nothing answered there. */
export const notReady = (url: string, cardUrl: string): CallFailure => ({
  text: `the agent at ${url} is not ready (HTTP ${NOT_READY} for ${cardUrl}): try again later`,
  code: EXIT_UNREACHABLE,
});

/**
 * What `call` tells the operator, and its exit code, when it failed at `stage`: refused credentials (4)
 * before anything else, in the terms of the binding that refused them (the card is read over HTTP, a gRPC
 * agent's turn is a gRPC call), then a card URL that could not be reached or not ready (3), then the error
 * itself (3); a turn's failure names the address the turn went to (turn-failure.ts).
 */
export async function explainCallFailure(
  error: unknown,
  stage: CallStage,
  target: {
    url: string;
    config: UpstreamConfig;
    headers: Record<string, string>;
    interrupted?: boolean;
    binding?: UpstreamBinding;
    /** Where the turn went, once the card was read. */
    turn?: TurnTarget;
    /** The URL typed was a 0.2.5 card (typedV025Card). */
    typedV025?: boolean;
  },
): Promise<CallFailure> {
  const status = error instanceof A2AError ? error.agentHttpStatus : undefined;
  // Finding the protocol, `auto` read the 1.0 card first: the one typed is read with --protocol 0.2.5.
  const hint = stage === 'detect' && target.typedV025 && target.config.protocol === 'auto' ? TYPED_V025_CARD_HINT : '';
  // What was sent decides the words: a refusal of no credentials asks for them.
  const sentAsMetadata = Object.keys(credentialHeaders(target.config.auth)).length > 0;
  const sent = sentAsMetadata || Object.keys(target.headers).length > 0;
  if (isCredentialsRefused(status))
    return stage === 'turn' && target.binding === 'GRPC' ? refusedOverGrpc(status, sentAsMetadata) : refused(status, sent, hint);
  if (stage === 'turn' && target.turn) return { text: turnFailureText(error, target.turn), code: EXIT_UNREACHABLE };
  // Only a failure to read the card is probed: during the turn the card URL was reached already.
  if (stage !== 'turn' && !target.interrupted) {
    const probe = await probeCard(target.url, target.config, target.headers);
    if ('unreachable' in probe) return { text: `cannot reach the agent card at ${probe.cardUrl}: ${probe.unreachable}`, code: EXIT_UNREACHABLE };
    if ('status' in probe && isCredentialsRefused(probe.status)) return refused(probe.status, sent, hint);
    if ('status' in probe && probe.status === NOT_READY) return notReady(target.url, probe.cardUrl);
  }
  if (stage === 'detect') return { text: `no A2A agent at ${target.url}: ${oneLine(error)}`, code: EXIT_UNREACHABLE };
  const detail = error instanceof A2AError ? `${error.message} (A2A error ${error.code})` : oneLine(error);
  return { text: `the call failed: ${detail}`, code: EXIT_UNREACHABLE };
}
