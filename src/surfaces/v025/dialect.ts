import type { Context } from 'hono';
import type { CallContext } from '../../core/agent-port.js';
import {
  withFields,
  A2AError,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsResponse,
  type Task,
  type TaskPushNotificationConfig,
} from '../../model/index.js';
import type { V1Method } from '../../mappings/index.js';
import type { V025Method } from '../../protocol/v025/index.js';
import { deleteResultToV025, pushConfigListToV025, pushConfigToV025, requestToV1 } from '../../translate/index.js';
import { isRecord } from '../../translate/common.js';
import type { GatewayEnv } from '../shared/env.js';
import { isLegacyMethodName, type JsonRpcDialect, type JsonRpcRequest } from '../shared/jsonrpc.js';
import { jsonRpcResult } from '../shared/jsonrpc-endpoint.js';
import { noteLog } from '../shared/log-fields.js';
import { runCall, type CallEdge, type OpenCall } from '../shared/call-pipeline.js';
import type { PortCallOptions } from '../shared/port-call.js';
import { outlivesCaller, prepareCall, type OperationEnv, type PreparedCall } from '../shared/operations.js';
import { extendedFacadeCard } from './card.js';
import { canceledTaskV025, forgetCanceledTurn } from './tasks/canceled-task.js';
import { createClientTaskIds } from './turn/client-task-ids.js';
import { createContinuations } from './turn/continuation.js';
import { createMemoryConversationLanguages } from './notes/conversation-languages.js';
import { relayCall } from './relay/passthrough.js';
import { facadeUrl, type V025FacadeDeps } from './deps.js';
import { requireDecodableFiles, requireUserRole } from './input.js';
import { v025ErrorAnswer } from './errors.js';
import { replyOptions } from './reply-options.js';
import { taskCallWords, toldInTaskLanguage } from './tasks/task-call-words.js';
import { latestTurnMessageOf } from './turn/latest-turn-message.js';
import { sendTurn, streamTurn, type TurnRouting } from './send.js';
import { toldInTurnLanguage } from './turn/told-in-turn-language.js';
import { v025Stream } from './stream.js';
import { facadeTaskV025 } from './tasks/task-history.js';
import { refuseFinished } from './tasks/task-methods.js';
import { watchedResubscription } from './tasks/cut-resubscriptions.js';
import { joinedTurn } from './tasks/joined-turn.js';
import { rejoinedTurn } from './tasks/rejoined-turn.js';

const PUSH_METHODS: ReadonlySet<V1Method> = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/**
 * The relay to a 0.2.5/0.3 upstream, if the agent is one. Its signal closure is made here, not in `serve`: a closure
 * there that names `c` would keep the whole Hono context in serve's scope, which a resubscription's open stream holds.
 */
const relayOf = (deps: V025FacadeDeps, c: Context<GatewayEnv>) => deps.passThrough?.resolve(() => c.req.raw.signal);

/** A unary 1.0 result of `method` as its 0.2.5 counterpart. */
function unaryResultToV025(method: V1Method, result: unknown): unknown {
  switch (method) {
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return pushConfigToV025(result as TaskPushNotificationConfig);
    case 'ListTaskPushNotificationConfigs':
      return pushConfigListToV025(result as ListTaskPushNotificationConfigsResponse);
    case 'DeleteTaskPushNotificationConfig':
      return deleteResultToV025();
    default:
      throw A2AError.internal(`${method} has no unary 0.2.5 result`);
  }
}

/** A 0.2.5 result about a task the caller named itself, with the caller's id in place of the upstream's. */
function withClientTaskId(result: unknown, clientTaskId: string): unknown {
  if (Array.isArray(result)) return result.map((entry) => withClientTaskId(entry, clientTaskId));
  if (!isRecord(result)) return result;
  if (result.kind === 'task') return withFields(result, { id: clientTaskId });
  if (typeof result.taskId === 'string') return withFields(result, { taskId: clientTaskId });
  return result;
}

/** The upstream task a task-addressed call's 1.0 params name (`taskId` for push configs, else `id`). */
function upstreamTaskIdOf(params: unknown): string | undefined {
  const id = isRecord(params) ? (typeof params.taskId === 'string' ? params.taskId : params.id) : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** An error about an upstream task, named by the id its caller chose for it (the upstream's stays behind the gateway). */
function inCallersTerms(error: unknown, params: unknown, clientTaskId: string): unknown {
  const upstreamId = upstreamTaskIdOf(params);
  if (!(error instanceof A2AError) || upstreamId === undefined) return error;
  const metadata = Object.fromEntries(Object.entries(error.metadata).map(([key, value]) => [key, value === upstreamId ? clientTaskId : value]));
  return error.withOptions({ metadata }).toldAs(error.message.replaceAll(upstreamId, clientTaskId));
}

/**
 * The A2A 0.2.5 JSON-RPC methods (`message/send`, `message/stream`, `tasks/*`, the push-config
 * methods and 0.3's `agent/getAuthenticatedExtendedCard`), translated to and from the 1.0 core by
 * src/translate. The METHOD decides the answer, not the path: `message/send` is JSON wherever it is
 * posted, `message/stream` and `tasks/resubscribe` are SSE. Every error is a 0.2.5 error with HTTP 200.
 * In front of a 0.2.5/0.3 agent (deps.passThrough), the calls are relayed untranslated (passthrough.ts).
 */
export function createV025Dialect(deps: V025FacadeDeps): JsonRpcDialect {
  const { options, profile, port } = deps;
  const routing: TurnRouting = {
    turns: createContinuations(deps.registry, deps.turnLetGo),
    ids: createClientTaskIds(deps.taskAliases, deps.registry),
    languages: deps.languages ?? createMemoryConversationLanguages({ max: 10_000, idleTtlMs: 0 }),
  };
  // The facade answers message sends and the extended card itself: the 1.0 edges' card rules do not apply.
  const env: OperationEnv = { port, pushNotifications: options.pushNotifications };
  const edge: CallEdge<JsonRpcRequest> = {
    surface: 'v025',
    extensionsHeader: 'X-A2A-Extensions',
    shutdown: deps.shutdown,
    errorResponse: (error, { id, method }) => v025ErrorAnswer(id, method, error, profile),
  };

  /** A task-addressed call's 1.0 params (`id`, or `taskId` for push configs) with the upstream's id for a caller-chosen one. */
  async function addressTask(params: unknown, principal: string): Promise<{ params: unknown; clientTaskId?: string }> {
    if (!isRecord(params)) return { params };
    const key = typeof params.taskId === 'string' ? 'taskId' : typeof params.id === 'string' && !('taskId' in params) ? 'id' : undefined;
    if (!key) return { params };
    const { upstreamId, clientTaskId } = await routing.ids.forCall(params[key] as string, principal);
    return clientTaskId ? { params: withFields(params, { [key]: upstreamId }), clientTaskId } : { params };
  }

  /** A turn's error before its reply began is told in the turn's language when it is the gateway's own (send.ts). */
  async function serveTold(request: JsonRpcRequest, c: Context<GatewayEnv>, open: (options?: PortCallOptions) => OpenCall): Promise<Response> {
    try {
      return await serve(request, c, open);
    } catch (error) {
      if (request.method !== 'message/send' && request.method !== 'message/stream') throw error;
      const principal = c.var.principal ?? '';
      throw await namedAsCalled(await toldInTurnLanguage(error, request.params, principal, deps, routing), request.params, principal);
    }
  }

  /** A turn's error about the task its caller named by an id of its own, named by that id. */
  async function namedAsCalled(error: unknown, params: unknown, principal: string): Promise<unknown> {
    const named = isRecord(params) && isRecord(params.message) ? params.message.taskId : undefined;
    if (typeof named !== 'string' || named === '' || !(error instanceof A2AError)) return error;
    const { upstreamId, clientTaskId } = await routing.ids.forCall(named, principal).catch(() => ({ upstreamId: named, clientTaskId: undefined }));
    return clientTaskId ? inCallersTerms(error, { taskId: upstreamId }, clientTaskId) : error;
  }

  /**
   * A unary call's 0.2.5 result. A task is answered as tasks/get shows it, also the one a cancel ended, whose turn's
   * rest the conversation's next message no longer shows (canceled-task.ts).
   */
  async function unaryAnswer(method: V1Method, prepared: PreparedCall, ctx: CallContext, clientTaskId: string | undefined): Promise<unknown> {
    if (method === 'GetTask') return facadeTaskV025(deps, prepared.params as GetTaskRequest, ctx, clientTaskId);
    const result = await prepared.run(ctx);
    if (method !== 'CancelTask') return unaryResultToV025(method, result);
    await forgetCanceledTurn(result as Task, ctx.principal, routing);
    return canceledTaskV025(deps, prepared.params as CancelTaskRequest, result as Task, ctx, clientTaskId);
  }

  async function serve(request: JsonRpcRequest, c: Context<GatewayEnv>, open: (options?: PortCallOptions) => OpenCall): Promise<Response> {
    const { id, method } = request;
    if (!Object.hasOwn(profile.methodsFromV025, method)) throw A2AError.methodNotFound();
    const target = profile.methodsFromV025[method as V025Method];
    // The push switch comes before the params: with push off, every push call is -32003.
    if (PUSH_METHODS.has(target) && !options.pushNotifications) throw A2AError.pushNotSupported();
    if (target === 'SendMessage' || target === 'SendStreamingMessage') requireUserRole(request.params);
    // A 0.2.5/0.3 upstream already speaks the caller's language: relay, do not translate.
    const relay = await relayOf(deps, c);
    if (relay) return relayCall(relay, request, c, deps);
    // The caller's own fields are named in what is refused of them, not the 1.0 ones they become.
    if (target === 'SendMessage' || target === 'SendStreamingMessage') requireDecodableFiles(request.params);
    const translated = requestToV1(method, request.params, profile);
    // A message/send is read as a stream and ends with its caller (docs/surfaces.md); a cancel or a push
    // config change is carried on like the 1.0 edges carry it.
    const call = open(translated.method === 'SendMessage' ? undefined : { outlivesCaller: outlivesCaller(translated.method) });
    // The facade's gate (auth.ts) named the caller: a key of its own, or the facade's anonymous caller.
    const ctx: CallContext = call.ctx;
    const turn = {
      id,
      params: translated.params,
      ctx,
      abort: call.abort,
      onClientGone: call.onClientGone,
      logFields: c.get('logFields'),
      logger: c.get('logger'),
    };
    // The upstream's activated extensions go back in 0.2.5's header, once its answer has begun.
    switch (translated.method) {
      case 'SendMessage': {
        const result = await sendTurn(turn, deps, routing);
        // The facade's line names the turn like the 1.0 line does, also for a task it just created.
        if (result.kind === 'task') noteLog(c, { taskId: result.id, contextId: result.contextId });
        return call.answer(jsonRpcResult(id, result));
      }
      case 'SendStreamingMessage':
        return call.answer(await streamTurn(turn, deps, routing));
      case 'GetExtendedAgentCard':
        return jsonRpcResult(id, await extendedFacadeCard(ctx, facadeUrl(c.req.raw, options), deps));
      default: {
        const addressed = await addressTask(translated.params, ctx.principal);
        try {
          const prepared = prepareCall(translated.method, addressed.params, env);
          noteLog(c, addressed.clientTaskId ? withFields(prepared.ref, { taskId: addressed.clientTaskId }) : prepared.ref);
          if (translated.method === 'CancelTask' && prepared.ref.taskId) await refuseFinished(port, prepared.ref.taskId, ctx, replyOptions(deps));
          if (prepared.kind === 'stream') {
            // A resubscription has no message to read its language from: the task's conversation says it.
            const { words, previous } = await taskCallWords(deps, { taskId: prepared.ref.taskId, principal: ctx.principal }, routing.languages);
            // The turn it follows shows its reply under the id that turn gave it, as tasks/get does (latest-turn-message.ts).
            const sentMessageId = latestTurnMessageOf(previous)?.messageId;
            const facts = withFields({ words }, sentMessageId ? { sentMessageId } : {});
            const reply = replyOptions(deps, withFields(facts, addressed.clientTaskId ? { taskId: addressed.clientTaskId } : {}));
            // A shutdown that cuts it notes the task, as it does a message's turn (cut-resubscriptions.ts).
            const watched = watchedResubscription(
              { principal: ctx.principal, contextId: previous?.contextId },
              routing.languages.cutTurns,
              deps.shutdown,
            );
            const stream = { id, deps, logFields: c.get('logFields'), signal: ctx.signal, abort: call.abort, reply, onEnd: watched.end };
            // Its caller read none of the turn here: the words the snapshot holds come first, the turn starting at the
            // caller's message the record holds, which a 0.2.5 agent's task may lack (joined-turn.ts).
            const taskId = prepared.ref.taskId;
            const filesBefore = taskId ? await routing.languages.filesBeforeTurn.of(ctx.principal, taskId).catch(() => undefined) : undefined;
            // A turn that started afresh opens with the words that say so; one that ended reads as tasks/get reads it.
            const rejoined = { deps, ctx, recorded: previous, startedAfresh: words.startedAfresh };
            const events = (onAccepted: () => void) =>
              rejoinedTurn(joinedTurn(watched.events(prepared.run(withFields(ctx, { onAccepted }))), previous, filesBefore), rejoined);
            return call.answer(await v025Stream(events, stream));
          }
          const result = await unaryAnswer(translated.method, prepared, ctx, addressed.clientTaskId);
          return call.answer(jsonRpcResult(id, addressed.clientTaskId ? withClientTaskId(result, addressed.clientTaskId) : result));
        } catch (caught) {
          // The gateway's own failure, and a refused cancel, are told in the task's conversation's language (task-call-words.ts).
          const error = await toldInTaskLanguage(
            caught,
            { taskId: upstreamTaskIdOf(addressed.params), principal: ctx.principal },
            deps,
            routing.languages,
          );
          // A task the caller named by its own id is named so in what goes wrong with it, too.
          throw addressed.clientTaskId ? inCallersTerms(error, addressed.params, addressed.clientTaskId) : error;
        }
      }
    }
  }

  return {
    name: 'a2a-0.2.5',
    handles: isLegacyMethodName,
    handle: (request, c) => runCall(c, edge, request, request.method.slice(0, 100), (open) => serveTold(request, c, open)),
    refuse: ({ id, method }, error) => v025ErrorAnswer(id, method, error, profile),
  };
}
