import { withFields, A2AError, AgentCard, ErrorCode } from '../../model/index.js';
import { withCause } from '../../model/error-cause.js';
import { V025_AGENT_CARD_PATH } from '../../protocol/v025/index.js';
import { V03_AGENT_CARD_PATH } from '../../protocol/v03/index.js';
import { neverReached } from '../never-reached.js';
import { getJson, type JsonGetOptions } from '../card-fetch.js';
import { validateResult } from '../validate-result.js';
import { credentialsRefused, refusesCredentials } from '../upstream-errors.js';

/** Where a 1.0 agent serves its card: where 0.3 put it. */
export const V1_AGENT_CARD_PATH = V03_AGENT_CARD_PATH;

/** A card handed over by the protocol detection (DetectedWithCard.card), when it is a valid 1.0 card; else undefined. */
export function handedCard(body: unknown): AgentCard | undefined {
  if (body === undefined) return undefined;
  try {
    return validateResult(AgentCard, body, 'agent card');
  } catch {
    return undefined;
  }
}

/**
 * The card of the 1.0 agent at `baseUrl` (no trailing slash), asked for with `A2A-Version: 1.0` (a
 * 1.0 server with 0.3 compat serves its 0.3 card otherwise). Whatever goes wrong, the caller sees
 * one error: the card is unavailable; or the gateway's credentials refused (credentialsRefused).
 */
export async function fetchV1Card(baseUrl: string, options: JsonGetOptions): Promise<AgentCard> {
  let status: number | undefined;
  let failure: unknown;
  try {
    const answer = await getJson(
      `${baseUrl}${V1_AGENT_CARD_PATH}`,
      withFields(options, { headers: withFields(options.headers, { 'a2a-version': '1.0' }) }),
    );
    if (answer.status !== 200) status = answer.status;
    else return validateResult(AgentCard, answer.body, 'agent card');
  } catch (error) {
    // Unreachable, or a card that is not one: the same words, without the status.
    failure = error;
  }
  if (refusesCredentials(status)) {
    throw credentialsRefused(
      status,
      `The upstream agent refused the gateway's credentials for its card at ${V1_AGENT_CARD_PATH} (HTTP ${status}; upstream.auth)`,
    );
  }
  const told = status !== undefined ? { agentHttpStatus: status } : neverReached(failure) ? { hopFailure: 'unavailable' as const } : {};
  // Why (a refused connection, DNS, TLS, a card that is not one, the agent's status) stays for the operator's log
  // (failure-cause.ts); the caller reads only that the card is unavailable.
  throw withCause(
    new A2AError(ErrorCode.Internal, 'Upstream agent card is unavailable', told),
    status !== undefined ? statusCause(baseUrl, status) : failure,
  );
}

/** The agent's answer for the 1.0 card, for the log; a 404 says where an agent of another version keeps its card. */
function statusCause(baseUrl: string, status: number): Error {
  const elsewhere =
    status === 404 ? ` (no 1.0 card there: an agent of 0.2.5 serves ${V025_AGENT_CARD_PATH}, which upstream.protocol auto reads)` : '';
  return new Error(`the agent answered HTTP ${status} for ${baseUrl}${V1_AGENT_CARD_PATH}${elsewhere}`);
}
