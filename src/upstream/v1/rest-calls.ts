import type { CallContext } from '../../core/agent-port.js';
import { deferIterable } from '../../core/iterables.js';
import { A2AError, ErrorCode } from '../../model/index.js';
import { isRecord } from '../../model/json.js';
import type { JsonRpcTransport } from '../jsonrpc-client.js';
import { V1_REST_WIRE, callRest, streamRest, type RestCall } from '../rest-wire.js';
import { checkedResult } from '../validate-result.js';
import { V1_UNARY_METHODS, streamEvent, type V1Calls, type V1StreamingName, type V1UnaryName } from './methods.js';

/** Where a call goes on the 1.0 HTTP+JSON binding, and what a 404 there means. */
interface Route {
  method: RestCall['method'];
  /** Below the interface URL (and the tenant segment), with its query. */
  path: string;
  body?: unknown;
  notFound(): A2AError;
}

type Params = Record<string, unknown>;

const enc = encodeURIComponent;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const taskNotFound = (taskId: unknown) => () => A2AError.taskNotFound(text(taskId));
const noRoute = (operation: string) => () => A2AError.unsupportedOperation(`The upstream agent has no HTTP+JSON route for ${operation}`);

/** The fields of a request that travel in the query string, as the binding names them. */
function query(params: Params, names: readonly string[]): string {
  const search = new URLSearchParams();
  for (const name of names) {
    const value = params[name];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') search.set(name, String(value));
  }
  const encoded = search.toString();
  return encoded === '' ? '' : `?${encoded}`;
}

/** The request without the fields its route carries in the path. */
function without(params: Params, ...names: string[]): Params {
  const body = { ...params };
  for (const name of names) delete body[name];
  return body;
}

const LIST_TASKS_QUERY = ['contextId', 'status', 'pageSize', 'pageToken', 'historyLength', 'statusTimestampAfter', 'includeArtifacts'] as const;

const taskPath = (params: Params): string => `/tasks/${enc(text(params.id))}`;
const configsPath = (params: Params): string => `/tasks/${enc(text(params.taskId))}/pushNotificationConfigs`;
const messageTaskId = (params: Params): unknown => (isRecord(params.message) ? params.message.taskId : undefined);

/** The 1.0 HTTP+JSON route of every method (the spec's binding, as a2a-js 1.x serves it). */
const UNARY_ROUTES: { readonly [K in V1UnaryName]: (params: Params) => Route } = {
  sendMessage: (p) => ({ method: 'POST', path: '/message:send', body: without(p, 'tenant'), notFound: taskNotFound(messageTaskId(p)) }),
  getTask: (p) => ({ method: 'GET', path: `${taskPath(p)}${query(p, ['historyLength'])}`, notFound: taskNotFound(p.id) }),
  listTasks: (p) => ({ method: 'GET', path: `/tasks${query(p, LIST_TASKS_QUERY)}`, notFound: noRoute('ListTasks') }),
  cancelTask: (p) => ({ method: 'POST', path: `${taskPath(p)}:cancel`, body: without(p, 'id', 'tenant'), notFound: taskNotFound(p.id) }),
  createTaskPushNotificationConfig: (p) => ({ method: 'POST', path: configsPath(p), body: without(p, 'tenant'), notFound: taskNotFound(p.taskId) }),
  getTaskPushNotificationConfig: (p) => ({ method: 'GET', path: `${configsPath(p)}/${enc(text(p.id))}`, notFound: taskNotFound(p.taskId) }),
  listTaskPushNotificationConfigs: (p) => ({
    method: 'GET',
    path: `${configsPath(p)}${query(p, ['pageSize', 'pageToken'])}`,
    notFound: taskNotFound(p.taskId),
  }),
  deleteTaskPushNotificationConfig: (p) => ({ method: 'DELETE', path: `${configsPath(p)}/${enc(text(p.id))}`, notFound: taskNotFound(p.taskId) }),
  getExtendedAgentCard: () => ({
    method: 'GET',
    path: '/extendedAgentCard',
    notFound: () => new A2AError(ErrorCode.ExtendedAgentCardNotConfigured, 'The upstream agent does not offer an extended agent card'),
  }),
};

const STREAM_ROUTES: { readonly [K in V1StreamingName]: (params: Params) => Route } = {
  sendStreamingMessage: (p) => ({ method: 'POST', path: '/message:stream', body: without(p, 'tenant'), notFound: taskNotFound(messageTaskId(p)) }),
  // POST, as the spec text and the a2a-js client do (the proto says GET; a2a-js serves both).
  subscribeToTask: (p) => ({ method: 'POST', path: `${taskPath(p)}:subscribe`, notFound: taskNotFound(p.id) }),
};

export interface V1RestCallsOptions {
  transport: JsonRpcTransport;
  /** The HTTP+JSON interface URL of the card, without a trailing slash (waits for the card when needed). */
  endpoint(signal: AbortSignal): Promise<string>;
  /** The interface's tenant (interface-tenant.ts), known once the endpoint is; it replaces the caller's. */
  tenant?(): string | undefined;
}

/**
 * How a 1.0 client calls over HTTP+JSON (V1Calls): each method's route, its request as the JSON body
 * or the query, a 1.0 `A2A-Version` header, and the answer checked like a JSON-RPC result. Errors
 * come as google.rpc.Status bodies (rest-errors.ts reads their ErrorInfo reason).
 */
export function createV1RestCalls({ transport, endpoint, tenant: interfaceTenant }: V1RestCallsOptions): V1Calls {
  async function restCall(route: Route, params: Params, ctx: CallContext): Promise<RestCall> {
    const base = await endpoint(ctx.signal);
    const tenant = interfaceTenant?.() ?? text(params.tenant);
    const url = `${base}${tenant === '' ? '' : `/${enc(tenant)}`}${route.path}`;
    const errors = { secrets: transport.secrets, notFound: route.notFound };
    return { wire: V1_REST_WIRE, transport, method: route.method, url, ctx, errors, ...(route.body === undefined ? {} : { body: route.body }) };
  }

  const asParams = (params: unknown): Params => (isRecord(params) ? params : {});

  return {
    async unary(name, params, ctx) {
      const request = asParams(params);
      const answer = await callRest(await restCall(UNARY_ROUTES[name](request), request, ctx));
      const method = V1_UNARY_METHODS[name];
      // An empty answer (204 on DELETE) is the binding's empty result.
      return checkedResult(method, answer ?? null, `${method.operation} result`);
    },
    stream(name, params, ctx) {
      const request = asParams(params);
      // The agent's events checked (streamEvent), without those the check leaves out.
      return deferIterable(async () => streamRest(await restCall(STREAM_ROUTES[name](request), request, ctx), streamEvent));
    },
  };
}
