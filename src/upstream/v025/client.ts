import type { Dispatcher } from 'undici';
import { z } from 'zod';
import type { UpstreamConfig } from '../../config/schema.js';
import type { CallContext, Upstream } from '../../core/agent-port.js';
import type { WarningLogger } from '../../throttled-warnings.js';
import { loadMappingProfile, type MappingProfile, type V1Method } from '../../mappings/index.js';
import {
  withFields,
  withHistoryLength,
  A2AError,
  ErrorCode,
  type AgentCard,
  type GetTaskRequest,
  type SendMessageRequest,
  type ListTaskPushNotificationConfigsResponse,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from '../../model/index.js';
import { V025AgentCard, V025Task, parseV025Response } from '../../protocol/v025/index.js';
import { cardFromV025, createV025ToV1StreamTranslator, requestToV025, resultToV1 } from '../../translate/index.js';
import { answerAsTask, historyAsAsked } from '../answered-message.js';
import { getJson } from '../card-fetch.js';
import { callJsonRpc, createJsonRpcTransport, streamJsonRpcResults } from '../jsonrpc-client.js';
import { credentialsRefused, fromTransportError, refusesCredentials } from '../upstream-errors.js';
import { answerParsedOrRepaired, v025Repaired } from '../empty-parts.js';
import { createV025CardCache, extendedCardUrls, type V025Dialect } from './card.js';
import { v025Wire } from './errors.js';
import { createTurnsAnsweredEarly } from './immediate.js';
import { subscribeV025, translateV025Stream } from './stream.js';
import { followUpAnsweredByTask } from './unstreamed-follow-up.js';
import { ALL_HISTORY, historyToAsk } from '../history-asked.js';

export interface V025UpstreamOptions {
  /** Where the agent lives; its card is at `${baseUrl}/.well-known/agent.json` (0.3: agent-card.json). */
  baseUrl: string;
  config: UpstreamConfig;
  dialect: V025Dialect;
  /** A pool to share; without one the client makes its own and closes it in close(). */
  dispatcher?: Dispatcher;
  /** Translation tables; default the plain `a2a-0.2.5` profile (an upstream is no Bailian). */
  profile?: MappingProfile;
  /** Told (at most once a minute) when returnImmediately turns find the background reads at their cap. */
  logger?: WarningLogger;
  /** The card the protocol detection just read (DetectedWithCard.card): the first call uses it instead of fetching it again. */
  card?: unknown;
}

export type V025Upstream = Upstream & {
  readonly dialect: V025Dialect;
  /** The JSON-RPC endpoint taken from the last card, or undefined before the first fetch. */
  endpoint(): string | undefined;
};

/** Results are checked where they are translated (src/translate), not on arrival. */
const ANY_RESULT = { schema: z.unknown() };

/**
 * An A2A 0.2.5 (or 0.3) agent behind the 1.0 port: every call is translated to `message/send`,
 * `tasks/get`, ... and its answer back to the 1.0 model by src/translate (plain 0.2.5 profile).
 * ListTasks has no 0.2.5 counterpart: the gateway's registry answers it, this client refuses it.
 */
export function createV025Upstream(options: V025UpstreamOptions): V025Upstream {
  const { config, dialect } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const profile = options.profile ?? loadMappingProfile('a2a-0.2.5');
  const transport = createJsonRpcTransport(config, { wire: v025Wire(profile), ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}) });
  const { dispatcher } = transport;
  const cards = createV025CardCache(
    baseUrl,
    dialect,
    { dispatcher, headers: transport.authHeaders, timeoutMs: config['request-timeout-ms'] },
    options.logger,
    config['card-origins'],
    options.card,
  );
  const resolveEndpoint = (signal: AbortSignal): Promise<string> => cards.endpoint(signal);

  /** A unary call with its 0.2.5 result as the agent sent it. */
  async function rawCall(method: V1Method, request: unknown, ctx: CallContext): Promise<unknown> {
    const target = requestToV025(method, request, profile);
    const url = await resolveEndpoint(ctx.signal);
    return callJsonRpc({ transport, endpoint: url, method: target.method, params: target.params, ctx }, ANY_RESULT);
  }

  /** A unary call's result in 1.0 terms; one holding messages or artifacts without parts is repaired (empty-parts.ts). */
  async function call(method: V1Method, request: unknown, ctx: CallContext, contextId?: string): Promise<unknown> {
    const options = contextId ? { contextId } : {};
    return answerParsedOrRepaired(await rawCall(method, request, ctx), (result) => resultToV1(method, result, profile, options), v025Repaired);
  }

  async function* results(method: V1Method, request: unknown, ctx: CallContext): AsyncGenerator<unknown> {
    const target = requestToV025(method, request, profile);
    const url = await resolveEndpoint(ctx.signal);
    yield* streamJsonRpcResults({ transport, endpoint: url, method: target.method, params: target.params, ctx });
  }

  /** 0.2.5 has no RPC for it: a plain GET, 404 meaning "not here, try the next place". */
  async function extendedCardOverHttp(ctx: CallContext): Promise<AgentCard> {
    const url = await resolveEndpoint(ctx.signal);
    for (const candidate of extendedCardUrls(url, baseUrl)) {
      let answer: Awaited<ReturnType<typeof getJson>>;
      try {
        answer = await getJson(candidate, {
          dispatcher,
          headers: transport.authHeaders,
          timeoutMs: config['request-timeout-ms'],
          signal: ctx.signal,
        });
      } catch (error) {
        throw fromTransportError(error, { caller: ctx.signal });
      }
      if (answer.status === 404) continue;
      if (refusesCredentials(answer.status)) {
        throw credentialsRefused(
          answer.status,
          `The upstream agent refused the gateway's credentials for its extended card (HTTP ${answer.status}; upstream.auth)`,
        );
      }
      if (answer.status !== 200) throw A2AError.invalidAgentResponse(`The upstream agent answered HTTP ${answer.status} for its extended card`);
      return cardFromV025(parseV025Response(V025AgentCard, answer.body, 'extended agent card'));
    }
    throw new A2AError(ErrorCode.ExtendedAgentCardNotConfigured, 'The upstream agent does not serve an extended agent card');
  }

  const getTask = async (req: GetTaskRequest, ctx: CallContext): Promise<Task> =>
    withHistoryLength((await call('GetTask', withFields(req, { historyLength: historyToAsk(req.historyLength) }), ctx)) as Task, req.historyLength);

  async function* sendStreamingMessage(req: SendMessageRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const translator = createV025ToV1StreamTranslator(req.message.contextId ? { profile, contextId: req.message.contextId } : { profile });
    yield* translateV025Stream(results('SendStreamingMessage', req, ctx), translator);
  }

  // a2a-js 0.2.5 fails a non-blocking message/send whose executor publishes no Task (upstream/v025/immediate.ts). So may an agent whose
  // card says 0.3: an a2a-js 0.2.5 server serves whatever card it is given. A turn is streamed whenever the agent streams.
  const answeredEarly = createTurnsAnsweredEarly({
    upstream: baseUrl,
    config,
    logger: options.logger,
    async streams(ctx) {
      await resolveEndpoint(ctx.signal);
      return cards.current()?.card.capabilities.streaming === true;
    },
    stream: sendStreamingMessage,
    getTask: (id, ctx) => getTask({ id }, ctx),
  });

  /** message/send; a non-blocking one going on with a task is answered by the task when the agent fails it but did the work. */
  function sendUnary(req: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
    const send = async (): Promise<SendMessageResponse> => (await call('SendMessage', req, ctx, req.message.contextId)) as SendMessageResponse;
    const taskId = req.message.taskId;
    if (req.configuration?.returnImmediately !== true || !taskId) return send();
    return followUpAnsweredByTask(send, () => getTask({ id: taskId }, ctx), ctx.signal);
  }

  return {
    dialect,
    endpoint: () => cards.current()?.endpoint,
    fetchCard: async (signal) => cardFromV025(await cards.load(signal)),
    async close() {
      await answeredEarly.close();
      await transport.close();
    },

    // A Message naming its task is the task COMPLETED with it (answerAsTask); 0.2.5 agents do not cut the history.
    async sendMessage(req, ctx) {
      const answer = (await answeredEarly.send(req, ctx)) ?? (await sendUnary(req, ctx));
      return historyAsAsked(await answerAsTask(answer, (id) => getTask({ id }, ctx)), req.configuration?.historyLength);
    },
    sendStreamingMessage,
    getTask,
    async listTasks() {
      // The gateway's registry answers ListTasks; nothing upstream could.
      throw A2AError.unsupportedOperation('ListTasks is not available on an A2A 0.2.5 agent');
    },
    cancelTask: async (req, ctx) => (await call('CancelTask', req, ctx)) as Task,
    subscribeToTask: (req, ctx) =>
      subscribeV025({
        taskId: req.id,
        profile,
        // The Task in its current state, history included: a2a-js 0.2.5 sends none for an unset length.
        getTask: async () =>
          answerParsedOrRepaired(
            await rawCall('GetTask', { id: req.id, historyLength: ALL_HISTORY }, ctx),
            (task) => parseV025Response(V025Task, task, 'task'),
            v025Repaired,
          ),
        resubscribe: () => results('SubscribeToTask', req, ctx),
      }),
    createTaskPushNotificationConfig: async (req, ctx) => (await call('CreateTaskPushNotificationConfig', req, ctx)) as TaskPushNotificationConfig,
    getTaskPushNotificationConfig: async (req, ctx) => (await call('GetTaskPushNotificationConfig', req, ctx)) as TaskPushNotificationConfig,
    listTaskPushNotificationConfigs: async (req, ctx) =>
      (await call('ListTaskPushNotificationConfigs', req, ctx)) as ListTaskPushNotificationConfigsResponse,
    async deleteTaskPushNotificationConfig(req, ctx) {
      await call('DeleteTaskPushNotificationConfig', req, ctx);
    },
    async getExtendedAgentCard(ctx) {
      await resolveEndpoint(ctx.signal);
      if (cards.current()?.card.supportsAuthenticatedExtendedCard !== true) {
        throw new A2AError(ErrorCode.ExtendedAgentCardNotConfigured, 'The upstream agent does not offer an extended agent card');
      }
      if (dialect === '0.3') return (await call('GetExtendedAgentCard', {}, ctx)) as AgentCard;
      return extendedCardOverHttp(ctx);
    },
  };
}
