import type { Context } from 'hono';
import type { CallContext } from '../../../core/agent-port.js';
import type { BailianConfig } from '../../../config/bailian-schema.js';
import type { CardSnapshot } from '../../../core/card-source.js';
import { slotOrRefusal, type TurnSlot } from '../../../core/turn-limits.js';
import { onBodyEnd } from '../../../observability/body-end.js';
import { callerLeft } from '../../../observability/caller-left.js';
import { foreignContextError } from '../../../core/admission.js';
import { ownerAdmits } from '../../../core/task-scope.js';
import type { MappingProfile } from '../../../mappings/index.js';
import { A2AError, MAX_REFERENCED_TASKS, parseParams, type Task } from '../../../model/index.js';
import { isRecord } from '../../../model/json.js';
import { V025AgentCard, V025TaskIdParams, V025TaskQueryParams, type V025TaskState } from '../../../protocol/v025/index.js';
import { parseV025SendParams } from '../../../protocol/v025/well-formed.js';
import { jsonRpcText } from '../../../protocol/jsonrpc-exact-ids.js';
import { rewriteV025Card } from '../../../translate/index.js';
import type { GatewayEnv } from '../../shared/env.js';
import type { JsonRpcRequest } from '../../shared/jsonrpc.js';
import { jsonRpcResult } from '../../shared/jsonrpc-endpoint.js';
import { callerLeftAnswer } from '../../shared/call-pipeline.js';
import { extendedCardForFacadeCallers, FACADE_KEY_HEADER, facadeKeys } from '../auth.js';
import { facadeUrl, type V025FacadeDeps, type V025Relay } from '../deps.js';
import { recordingAnswer, type RelayedTask } from './passthrough-record.js';
import { observedRelay } from './relay-observed.js';
import { relayedPushParams } from './relayed-push-configs.js';

/**
 * The facade in front of a 0.2.5/0.3 agent, under a profile whose callers read the agent's own answers
 * (relaysAsIs): the caller already speaks the agent's language, so its calls are relayed as they are (after the facade's own key check and
 * the translating facade's check of their params) and the agent's answers come
 * back byte for byte, ids, states and artifacts included, as long as they are 0.2.5 answers: a streaming
 * method answered with a JSON envelope gets it as one SSE frame, and an answer in no protocol's shape
 * becomes the facade's own -32006 (relay-answer.ts). What the facade adds is what describes
 * the gateway: the card, the auth, the method list and the push switch (both checked by the dialect
 * before it relays), a refusal of what another caller owns (refuseForeign), and, once callers hold
 * credentials, a record of the tasks it relays (passthrough-record.ts). Such calls bypass the core
 * otherwise: the registry keeps only who owns a relayed task, not the task (the 1.0 surface's ListTasks
 * does not list them), and the mapping profile, the follow-up logic and the `bailian.*` message rules
 * do not apply.
 */

/**
 * Whether the facade may relay a 0.2.5/0.3 agent's answers as they are: only when its callers read an
 * answer the way the agent gives it (the agent's own artifacts, parts as they are). A caller that reads
 * one reply artifact of text (Bailian shows no status message, and renders text only) needs the reply
 * built from what the agent said, whatever version the agent speaks: its calls go through the core and the
 * reply rules, as a 1.0 agent's do.
 */
export const relaysAsIs = (profile: MappingProfile, bailian: Pick<BailianConfig, 'render-parts'>): boolean =>
  profile.options.replyArtifacts === 'own' && (bailian['render-parts'] ?? profile.options.renderParts) === 'native';

const EXTENDED_CARD_METHOD = 'agent/getAuthenticatedExtendedCard';

/** The agent's own card as the facade serves it (url, security and identity of the gateway). */
export function passThroughCard(card: V025AgentCard, url: string, deps: V025FacadeDeps): V025AgentCard {
  const { options, profile } = deps;
  const { bailian } = options;
  return rewriteV025Card(card, {
    url,
    overrides: bailian.card,
    defaultSkillTag: profile.options.defaultSkillTag,
    pushNotifications: options.pushNotifications,
    ...(facadeKeys(bailian).length > 0 ? { apiKeyHeader: FACADE_KEY_HEADER } : {}),
  });
}

/**
 * The agent's own card for a card snapshot: fetched once per snapshot (the card refresher decides
 * how often the upstream is asked), the last good one when that fetch fails.
 */
export function relayCardCache(): (snapshot: CardSnapshot, relay: V025Relay) => Promise<V025AgentCard | undefined> {
  const bySnapshot = new WeakMap<CardSnapshot, Promise<V025AgentCard | undefined>>();
  let lastGood: V025AgentCard | undefined;
  return (snapshot, relay) => {
    let card = bySnapshot.get(snapshot);
    if (!card) {
      card = relay.card().then(
        (fresh) => (lastGood = fresh),
        () => {
          bySnapshot.delete(snapshot);
          return lastGood;
        },
      );
      bySnapshot.set(snapshot, card);
    }
    return card;
  };
}

/** 0.3's extended card names the agent like its card does: served rewritten, like the card. */
async function extendedCard(answer: Response, request: JsonRpcRequest, c: Context<GatewayEnv>, deps: V025FacadeDeps): Promise<Response> {
  const text = await answer.text();
  let envelope: { result?: unknown; error?: unknown } | undefined;
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    envelope = undefined;
  }
  if (envelope?.error !== undefined) return new Response(text, { status: answer.status, headers: answer.headers });
  const card = V025AgentCard.safeParse(envelope?.result);
  if (!card.success) throw A2AError.invalidAgentResponse('The upstream agent returned an invalid extended card');
  return jsonRpcResult(request.id, passThroughCard(card.data, facadeUrl(c.req.raw, deps.options), deps));
}

/**
 * A relayed call passes the core, which keeps callers apart, but the 1.0 surface's tasks and contexts on
 * the same agent are recorded there: one named here that another caller owns is refused as the core
 * refuses it (task-not-found; a message into the context: -32602), before anything reaches the agent.
 * A task the registry does not know follows the core's rule too (task-scope.ts): the agent's while
 * every caller is anonymous, else not found; the facade's own relayed tasks are recorded then.
 *
 * Every id the call names is checked, not the first found: the agent reads the field its method uses
 * (`message.taskId` for a message, `id` or `taskId` for the others), so a call that names its own task in
 * one field and another caller's in the next would reach the other's. A message's `referenceTaskIds` too:
 * an a2a-js agent loads each referenced task and hands it to the turn (namedTaskIds).
 */
async function refuseForeign(params: unknown, principal: string, deps: V025FacadeDeps): Promise<void> {
  if (!isRecord(params)) return;
  const { registry } = deps;
  const message = isRecord(params.message) ? params.message : undefined;
  const taskIds = namedTaskIds(params, message);
  // Asked together (a message may refer to many tasks); the first foreign one in the call's order is the answer.
  const owners = await Promise.all(taskIds.map((taskId) => registry.ownerOf(taskId)));
  const foreign = taskIds.find((_, index) => !ownerAdmits(owners[index], { principal }, deps.options.unknownTasks));
  if (foreign !== undefined) throw A2AError.taskNotFound(foreign);
  const contextId = message?.contextId;
  if (typeof contextId === 'string' && !(await contextAdmits(contextId, principal, deps))) throw foreignContextError(contextId);
}

/**
 * A context the registry does not know cannot be told from a new one the caller chose: it is let in, and, once callers
 * hold credentials, claimed for this one before the agent hears the message, as the core's admission does. The agent
 * keeps the conversation even when the turn records nothing (a timeout, an error answer), and another caller naming
 * the context would go on in it.
 */
async function contextAdmits(contextId: string, principal: string, { registry, options }: V025FacadeDeps): Promise<boolean> {
  if (options.unknownTasks === 'agent') return ownerAdmits(await registry.contextOwner(contextId), { principal }, 'agent');
  return (await registry.claimContext(contextId, { owner: principal, tenant: '' })).owner === principal;
}

/**
 * Every task id a relayed call names, each once: `id`, `taskId`, the message's `taskId` and its
 * `referenceTaskIds`. Absent or null names none; any other value that is not a string is refused here,
 * since an agent may well read it as the id it spells (a one-element array, in JavaScript).
 */
function namedTaskIds(params: Record<string, unknown>, message: Record<string, unknown> | undefined): string[] {
  const references = message?.referenceTaskIds;
  if (Array.isArray(references) && references.length > MAX_REFERENCED_TASKS) {
    throw A2AError.invalidParams(`Invalid params: message.referenceTaskIds: at most ${MAX_REFERENCED_TASKS} tasks`);
  }
  const named = [params.id, params.taskId, message?.taskId, ...(Array.isArray(references) ? (references as unknown[]) : [references])];
  const ids = new Set<string>();
  for (const value of named) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw A2AError.invalidParams('A task id must be a string');
    ids.add(value);
  }
  return [...ids];
}

/**
 * One 0.2.5 JSON-RPC call relayed to the agent. The body is the parsed request written again (the
 * endpoint has read the original): the same envelope and params, not necessarily the same bytes.
 * The exchange follows the caller's connection only: a relayed stream cannot be given a closing
 * frame at shutdown, so it ends when the drain cuts the connection (which aborts the upstream call).
 * It is logged and metered as a call through the core is (relay-observed.ts); a caller who hung up
 * before the answer is answered as gone (`ended: caller_left`), not with the aborted call's error.
 */
export async function relayCall(relay: V025Relay, request: JsonRpcRequest, c: Context<GatewayEnv>, deps: V025FacadeDeps): Promise<Response> {
  const { jsonrpc, id, method } = request;
  const principal = c.get('principal');
  if (method === EXTENDED_CARD_METHOD && !extendedCardForFacadeCallers(deps.options)) throw A2AError.extendedCardNotConfigured();
  RELAYED_PARAMS_CHECKS.get(method)?.(request.params);
  const params = relayedPushParams(method, request.params, deps.options);
  await refuseForeign(params, principal, deps);
  const body = jsonRpcText(params === undefined ? { jsonrpc, id, method } : { jsonrpc, id, method, params });
  try {
    if (!SLOT_METHODS.has(method)) {
      const answer = await observedRelay(relay, method, body, c, deps);
      return method === EXTENDED_CARD_METHOD ? await extendedCard(answer, request, c, deps) : answer;
    }
    return await relayedTurn(relay, method, body, c, deps);
  } catch (error) {
    // Its caller hung up, and that ended the relayed call: nothing failed, nobody reads an answer (as call-pipeline.ts tells it).
    if (c.req.raw.signal.aborted && callerLeft(c)) return callerLeftAnswer(c);
    throw error;
  }
}

/** A relayed message or resubscription, under its client's cap on turns in flight (turnSlot). */
async function relayedTurn(relay: V025Relay, method: string, body: string, c: Context<GatewayEnv>, deps: V025FacadeDeps): Promise<Response> {
  const principal = c.get('principal');
  const taking = turnSlot(c, deps);
  const slot = taking instanceof Promise ? await taking : taking;
  try {
    const answer = await observedRelay(relay, method, body, c, deps);
    // Only messages start tasks; without credentials nothing needs them recorded (the agent answers for all).
    const relayed =
      !MESSAGE_METHODS.has(method) || deps.options.unknownTasks === 'agent'
        ? answer
        : await recordingAnswer(answer, (task) => recordRelayed(task, principal, deps));
    return slot ? onBodyEnd(relayed, slot.release) : relayed;
  } catch (error) {
    slot?.release();
    throw error;
  }
}

/**
 * The params of a relayed turn or task call, checked as the translating facade checks them: the agent may
 * not (a2a-js 0.2.5 answers a message without parts with a failed task, and params without a message
 * with -32603 naming its own TypeError), and a caller's mistake must read as the same -32602 naming the
 * field whichever way the facade serves it. Only checked: what is relayed is still the caller's params.
 */
const RELAYED_PARAMS_CHECKS: ReadonlyMap<string, (params: unknown) => unknown> = new Map<string, (params: unknown) => unknown>([
  ['message/send', parseV025SendParams],
  ['message/stream', parseV025SendParams],
  ['tasks/get', (params: unknown) => parseParams(V025TaskQueryParams, params)],
  ['tasks/cancel', (params: unknown) => parseParams(V025TaskIdParams, params)],
  ['tasks/resubscribe', (params: unknown) => parseParams(V025TaskIdParams, params)],
]);

const MESSAGE_METHODS: ReadonlySet<string> = new Set(['message/send', 'message/stream']);
/** What holds a slot under its client's cap: a message, and a resubscription, which holds an upstream connection as a stream does (core/turn-limits.ts). */
const SLOT_METHODS: ReadonlySet<string> = new Set([...MESSAGE_METHODS, 'tasks/resubscribe']);

/**
 * A relayed message's (or resubscription's) slot under its client's cap (the core caps the turns it sees itself): held until
 * the answer's body has gone out or its caller left, or refused before the agent is asked.
 */
function turnSlot(c: Context<GatewayEnv>, deps: V025FacadeDeps): TurnSlot | Promise<TurnSlot> | undefined {
  const limits = deps.turnLimits;
  if (!limits) return undefined;
  const client = c.get('client');
  // The request's own signal: it aborts when the caller goes away (only relayed turns pay for it).
  const ctx: CallContext = { principal: c.get('principal'), signal: c.req.raw.signal, surface: 'v025', ...(client === undefined ? {} : { client }) };
  return slotOrRefusal(limits, ctx);
}

/**
 * A relayed task in the registry, under its caller: its id, context and state, not its content. A
 * task another caller owns is left as it is: both stores' `put` refuses it.
 */
async function recordRelayed(relayed: RelayedTask, principal: string, deps: V025FacadeDeps): Promise<void> {
  const states = deps.profile.statesFromV025;
  const known = relayed.state !== undefined && Object.hasOwn(states, relayed.state);
  const task: Task = {
    id: relayed.id,
    contextId: relayed.contextId,
    status: { state: known ? states[relayed.state as V025TaskState] : 'TASK_STATE_UNSPECIFIED' },
  };
  await deps.registry.put(task, { owner: principal, upstream: deps.options.upstreamName });
}
