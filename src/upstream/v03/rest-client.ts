import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { UpstreamConfig } from '../../config/schema.js';
import type { CallContext, Upstream } from '../../core/agent-port.js';
import { loadMappingProfile, type MappingProfile } from '../../mappings/index.js';
import {
  A2AError,
  ErrorCode,
  endsTurn,
  withHistoryLength,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from '../../model/index.js';
import {
  V03ListTaskPushNotificationConfigResponse,
  V03RestAgentCard,
  V03SendMessageResponse,
  V03StreamResponse,
  V03Task,
  V03TaskPushNotificationConfig,
} from '../../protocol/v03/index.js';
import { parseV025Response, type V025AgentCard } from '../../protocol/v025/index.js';
import {
  cardFromV025,
  cardFromV03Rest,
  createV03RestToV1StreamTranslator,
  interfacesFromV03CardFields,
  sendRequestToV03,
  sendResponseFromV03,
  taskFromV03,
  taskPushConfigFromV03,
  taskPushConfigToV03,
} from '../../translate/index.js';
import { answerAsTask, historyAsAsked } from '../answered-message.js';
import { historyToAsk } from '../history-asked.js';
import { createSubscribeMethods } from './subscribe-method.js';
import { createJsonRpcTransport } from '../jsonrpc-client.js';
import { createV025CardCache } from '../v025/card.js';
import { V03_REST_WIRE, callRest, streamRest, type RestCall } from '../rest-wire.js';
import { usableUrl } from '../v1/client.js';
import type { CardAddressNotice } from '../card-address.js';
import type { WarningLogger } from '../../throttled-warnings.js';
import { createTurnsAnsweredEarly } from '../v025/immediate.js';
import { V03_REST_PARTS, answerParsedOrRepaired, eventParsedOrRepaired, taskAnswerRepaired, wrappedRepaired } from '../empty-parts.js';

export interface V03RestUpstreamOptions {
  /** Where the agent lives; its card is at `${baseUrl}/.well-known/agent-card.json`. */
  baseUrl: string;
  config: UpstreamConfig;
  /** A pool to share; without one the client makes its own and closes it in close(). */
  dispatcher?: Dispatcher;
  /** Error-code table for the agent's JSON-RPC-style error codes; default the plain `a2a-0.2.5` profile. */
  profile?: MappingProfile;
  /**
   * Told once when the card's address is on loopback and upstream.url's is not (card-address.ts), and (at most once
   * a minute) when returnImmediately turns find the background reads at their cap.
   */
  logger?: WarningLogger;
  /** The card the protocol detection just read (DetectedWithCard.card): the first call uses it instead of fetching it again. */
  card?: unknown;
}

export type V03RestUpstream = Upstream & {
  /** The HTTP+JSON base URL taken from the last card (routes are under `${endpoint}/v1/`), or undefined before the first fetch. */
  endpoint(): string | undefined;
};

/**
 * The HTTP+JSON interface of a 0.3 card: `url` when HTTP+JSON is preferred, else the first such
 * additional interface; reachable from here (see usableUrl), without a trailing slash.
 */
export function restEndpoint(card: V025AgentCard, baseUrl: string, notice?: CardAddressNotice): string {
  const rest = interfacesFromV03CardFields(card).find((entry) => entry.transport === 'HTTP+JSON');
  return (usableUrl(rest?.url, `${baseUrl}/`, notice) ?? baseUrl).replace(/\/+$/, '');
}

const enc = encodeURIComponent;
const taskNotFound = (taskId: string) => () => A2AError.taskNotFound(taskId);

const readStreamEvent = (value: unknown): V03StreamResponse => parseV025Response(V03StreamResponse, value, 'stream event');
const repairedWrapped = (value: unknown): unknown => wrappedRepaired(value, V03_REST_PARTS);
const repairedTask = (value: unknown): unknown => taskAnswerRepaired(value, V03_REST_PARTS);

/** What a repeated snapshot would tell a subscriber that the first one did not. */
const progressOf = (task: Task): string => JSON.stringify([task.status, task.artifacts ?? []]);

/**
 * An A2A 0.3 agent that offers only the HTTP+JSON binding, behind the 1.0 port: every call goes to
 * its `/v1/...` route in 0.3 proto JSON, translated both ways by src/translate/v03. ListTasks
 * has no 0.3 REST route: the gateway's registry answers it, this client refuses it (-32004).
 */
export function createV03RestUpstream(options: V03RestUpstreamOptions): V03RestUpstream {
  const { config } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const profile = options.profile ?? loadMappingProfile('a2a-0.2.5');
  const transport = createJsonRpcTransport(config, options.dispatcher ? { dispatcher: options.dispatcher } : {});
  const cards = createV025CardCache(
    baseUrl,
    '0.3',
    { dispatcher: transport.dispatcher, headers: transport.authHeaders, timeoutMs: config['request-timeout-ms'] },
    options.logger,
    config['card-origins'],
    options.card,
  );

  const current = (): string | undefined => {
    const card = cards.current()?.card;
    return card ? restEndpoint(card, baseUrl, cards.notice) : undefined;
  };

  /** Calls before any card fetch wait for one shared fetch (the card cache's). */
  async function route(path: string, ctx: CallContext): Promise<string> {
    await cards.endpoint(ctx.signal);
    return `${current() ?? baseUrl}${path}`;
  }

  async function restCall(method: RestCall['method'], path: string, ctx: CallContext, notFound: () => A2AError, body?: unknown): Promise<RestCall> {
    const url = await route(path, ctx);
    const errors = { secrets: transport.secrets, profile, notFound };
    return { wire: V03_REST_WIRE, transport, method, url, ctx, errors, ...(body === undefined ? {} : { body }) };
  }

  /** A unary answer read by `schema`; one holding messages or artifacts without parts is repaired by `repair` (empty-parts.ts). */
  async function unary<T>(schema: z.ZodType<T>, what: string, call: Promise<RestCall>, repair?: (value: unknown) => unknown): Promise<T> {
    const answer = await callRest(await call);
    const parse = (value: unknown): T => parseV025Response(schema, value, what);
    return repair ? answerParsedOrRepaired(answer, parse, repair) : parse(answer);
  }

  /** A 0.3 stream as 1.0 events, left (closing the response) once the turn is over. */
  async function* translated(
    call: RestCall,
    contextId: string | undefined,
    started = false,
    skip: (event: V03StreamResponse) => boolean = () => false,
    continues = false,
  ): AsyncGenerator<StreamResponse> {
    const translator = createV03RestToV1StreamTranslator({ started, continues, ...(contextId ? { contextId } : {}) });
    for await (const raw of streamRest(call)) {
      // An event without content is left out (empty-parts.ts): an artifact-update without parts.
      const event = eventParsedOrRepaired(raw, readStreamEvent, repairedWrapped);
      if (event === undefined || skip(event)) continue;
      const { events, done } = translator.push(event);
      yield* events;
      if (done) return;
    }
  }

  /** The task with the history a 1.0 caller means by `historyLength`, whatever the agent makes of it (history-asked.ts). */
  async function getTask(id: string, historyLength: number | undefined, ctx: CallContext): Promise<Task> {
    const asked = historyToAsk(historyLength);
    const query = asked === undefined ? '' : `?historyLength=${asked}`;
    const task = taskFromV03(await unary(V03Task, 'task', restCall('GET', `/v1/tasks/${enc(id)}${query}`, ctx, taskNotFound(id)), repairedTask));
    return withHistoryLength(task, historyLength);
  }

  async function sendUnary(req: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
    const call = restCall('POST', '/v1/message:send', ctx, taskNotFound(req.message.taskId ?? ''), sendRequestToV03(req));
    return sendResponseFromV03(
      await unary(V03SendMessageResponse, 'SendMessage result', call, repairedWrapped),
      req.message.contextId ?? randomUUID(),
    );
  }

  const subscribed = createSubscribeMethods();

  /** The snapshot first (a 0.3 agent does not promise one), then the agent's events minus a repeat of it. */
  async function* subscribe(id: string, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const snapshot = await getTask(id, undefined, ctx);
    if (endsTurn(snapshot.status.state)) throw A2AError.taskNotActive(id);
    yield { task: snapshot };
    const seen = progressOf(snapshot);
    let leading = true;
    const repeatsSnapshot = (event: V03StreamResponse): boolean => {
      const isLeading = leading;
      leading = false;
      return isLeading && event.task?.id === id && progressOf(taskFromV03(event.task)) === seen;
    };
    yield* subscribed(async function* (method) {
      yield* translated(await restCall(method, `/v1/tasks/${enc(id)}:subscribe`, ctx, taskNotFound(id)), snapshot.contextId, true, repeatsSnapshot);
    });
  }

  async function* sendStreamingMessage(req: SendMessageRequest, ctx: CallContext): AsyncGenerator<StreamResponse> {
    const call = await restCall('POST', '/v1/message:stream', ctx, taskNotFound(req.message.taskId ?? ''), sendRequestToV03(req));
    yield* translated(call, req.message.contextId, false, undefined, req.message.taskId !== undefined);
  }

  // A non-blocking message:send is answered with the turn's first event and nothing reads the rest: a turn answered
  // with a Message of its task (a2a-js 1.x keeps the task working) held its context for good. So, as for a 0.2.5
  // agent, such a turn is streamed and read on to its end (upstream/v025/immediate.ts).
  const answeredEarly = createTurnsAnsweredEarly({
    upstream: baseUrl,
    config,
    logger: options.logger,
    async streams(ctx) {
      await cards.endpoint(ctx.signal);
      return cards.current()?.card.capabilities.streaming === true;
    },
    stream: sendStreamingMessage,
    getTask: (id, ctx) => getTask(id, undefined, ctx),
  });

  const pushConfigPath = (taskId: string, configId?: string): string =>
    `/v1/tasks/${enc(taskId)}/pushNotificationConfigs${configId === undefined ? '' : `/${enc(configId)}`}`;

  return {
    endpoint: current,
    fetchCard: async (signal) => cardFromV025(await cards.load(signal)),
    async close() {
      await answeredEarly.close();
      await transport.close();
    },

    // A Message naming its task is the task COMPLETED with it (answerAsTask), cut to the history asked for once more.
    async sendMessage(req, ctx) {
      const answer = (await answeredEarly.send(req, ctx)) ?? (await sendUnary(req, ctx));
      return historyAsAsked(await answerAsTask(answer, (id) => getTask(id, undefined, ctx)), req.configuration?.historyLength);
    },
    sendStreamingMessage,
    getTask: (req, ctx) => getTask(req.id, req.historyLength, ctx),
    async listTasks() {
      // The gateway's registry answers ListTasks; a 0.3 HTTP+JSON agent has no route for it.
      throw A2AError.unsupportedOperation('ListTasks is not available on an A2A 0.3 HTTP+JSON agent');
    },
    async cancelTask(req, ctx) {
      const call = restCall('POST', `/v1/tasks/${enc(req.id)}:cancel`, ctx, taskNotFound(req.id), { name: `tasks/${req.id}` });
      return taskFromV03(await unary(V03Task, 'task', call, repairedTask));
    },
    subscribeToTask: (req, ctx) => subscribe(req.id, ctx),
    async createTaskPushNotificationConfig(req, ctx) {
      const call = restCall('POST', pushConfigPath(req.taskId), ctx, taskNotFound(req.taskId), taskPushConfigToV03(req));
      return taskPushConfigFromV03(await unary(V03TaskPushNotificationConfig, 'push notification config', call), req.taskId);
    },
    async getTaskPushNotificationConfig(req, ctx) {
      const call = restCall('GET', pushConfigPath(req.taskId, req.id), ctx, taskNotFound(req.taskId));
      return taskPushConfigFromV03(await unary(V03TaskPushNotificationConfig, 'push notification config', call), req.taskId);
    },
    async listTaskPushNotificationConfigs(req, ctx) {
      const call = restCall('GET', pushConfigPath(req.taskId), ctx, taskNotFound(req.taskId));
      const answer = (await callRest(await call)) ?? [];
      const list = parseV025Response(V03ListTaskPushNotificationConfigResponse, answer, 'push notification config list');
      const configs = Array.isArray(list) ? list : (list.configs ?? []);
      const nextPageToken = Array.isArray(list) ? undefined : list.nextPageToken || undefined;
      return { configs: configs.map((config) => taskPushConfigFromV03(config, req.taskId)), ...(nextPageToken ? { nextPageToken } : {}) };
    },
    async deleteTaskPushNotificationConfig(req, ctx) {
      await callRest(await restCall('DELETE', pushConfigPath(req.taskId, req.id), ctx, taskNotFound(req.taskId)));
    },
    async getExtendedAgentCard(ctx) {
      const unconfigured = () => new A2AError(ErrorCode.ExtendedAgentCardNotConfigured, 'The upstream agent does not offer an extended agent card');
      await cards.endpoint(ctx.signal);
      if (cards.current()?.card.supportsAuthenticatedExtendedCard !== true) throw unconfigured();
      return cardFromV03Rest(await unary(V03RestAgentCard, 'extended agent card', restCall('GET', '/v1/card', ctx, unconfigured)));
    },
  };
}
