import type { Context, Handler } from 'hono';
import { withFields, A2AError, ErrorCode, retryAfterHeader, toRestError } from '../../model/index.js';
import { isRecord } from '../../model/json.js';
import { contentTypeNotSupported, declaresJson } from '../shared/content-type.js';
import type { GatewayEnv } from '../shared/env.js';
import { operationCall, parseJsonBody, readBodyText, runCall, type CallEdge } from '../shared/call-pipeline.js';
import { nestedDeeperThan, tooDeeplyNested } from '../shared/json-depth.js';
import { V1_OPERATIONS, type V1Method } from '../shared/operations.js';
import { publicBaseUrl } from '../shared/public-url.js';
import { v1OperationEnv, type V1SurfaceDeps } from './deps.js';
import { restMethodNotAllowed, restRouteNotFound } from './rest-status.js';
import { restStatusTimestampAfter } from './rest-timestamp.js';
import { checkV1Version } from './version.js';

export { isRestPath } from './rest-status.js';

type QueryType = 'int' | 'bool' | 'string';

interface RouteInput {
  /** Decoded path captures. */
  path: string[];
  query: URLSearchParams;
  body(): Promise<Record<string, unknown>>;
}

interface RestRoute {
  method: string;
  pattern: RegExp;
  operation: V1Method;
  params(input: RouteInput): Promise<Record<string, unknown>>;
}

const LIST_TASKS_QUERY: Record<string, QueryType> = {
  contextId: 'string',
  status: 'string',
  pageSize: 'int',
  pageToken: 'string',
  historyLength: 'int',
  statusTimestampAfter: 'string',
  includeArtifacts: 'bool',
};

/** Query parameters typed like the request object's fields; a value of the wrong type is a 400 naming it. */
function fromQuery(query: URLSearchParams, types: Record<string, QueryType>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(types)) {
    const raw = query.get(name);
    if (raw === null) continue;
    if (type === 'string') params[name] = raw;
    else if (type === 'int' && /^-?\d{1,15}$/.test(raw)) params[name] = Number(raw);
    else if (type === 'bool' && (raw === 'true' || raw === 'false')) params[name] = raw === 'true';
    else {
      const description = type === 'int' ? 'must be an integer' : 'must be true or false';
      throw A2AError.invalidParams(`Invalid params: ${name}: ${description}`, [{ field: name, description }]);
    }
  }
  if (typeof params.statusTimestampAfter === 'string') {
    const after = restStatusTimestampAfter(params.statusTimestampAfter);
    if (after === undefined) delete params.statusTimestampAfter;
    else params.statusTimestampAfter = after;
  }
  return params;
}

// An empty segment is captured too (`GET /tasks/`, `POST /tasks/:cancel`): the route is what the path
// asks for, and the operation's id rule answers it, 400 naming the field, as for any other bad id.
const ID = '([^/]*)';
const ROUTES: RestRoute[] = [
  { method: 'POST', pattern: /^\/message:send$/, operation: 'SendMessage', params: ({ body }) => body() },
  { method: 'POST', pattern: /^\/message:stream$/, operation: 'SendStreamingMessage', params: ({ body }) => body() },
  ...['GET', 'POST'].map((method): RestRoute => ({
    method,
    pattern: new RegExp(`^/tasks/${ID}:subscribe$`),
    operation: 'SubscribeToTask',
    params: async ({ path }) => ({ id: path[0] }),
  })),
  {
    method: 'POST',
    pattern: new RegExp(`^/tasks/${ID}:cancel$`),
    operation: 'CancelTask',
    params: async ({ path, body }) => withFields(await body(), { id: path[0] }),
  },
  {
    method: 'POST',
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs$`),
    operation: 'CreateTaskPushNotificationConfig',
    params: async ({ path, body }) => withFields(await body(), { taskId: path[0] }),
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs$`),
    operation: 'ListTaskPushNotificationConfigs',
    params: async ({ path, query }) => withFields(fromQuery(query, { pageSize: 'int', pageToken: 'string' }), { taskId: path[0] }),
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs/${ID}$`),
    operation: 'GetTaskPushNotificationConfig',
    params: async ({ path }) => ({ taskId: path[0], id: path[1] }),
  },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/tasks/${ID}/pushNotificationConfigs/${ID}$`),
    operation: 'DeleteTaskPushNotificationConfig',
    params: async ({ path }) => ({ taskId: path[0], id: path[1] }),
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/tasks/${ID}$`),
    operation: 'GetTask',
    params: async ({ path, query }) => withFields(fromQuery(query, { historyLength: 'int' }), { id: path[0] }),
  },
  { method: 'GET', pattern: /^\/tasks$/, operation: 'ListTasks', params: async ({ query }) => fromQuery(query, LIST_TASKS_QUERY) },
  { method: 'GET', pattern: /^\/extendedAgentCard$/, operation: 'GetExtendedAgentCard', params: async () => ({}) },
];

interface Match {
  route: RestRoute;
  captures: string[];
  tenant?: string;
}

type Lookup = { match: Match } | { allowed: string[] } | undefined;

/**
 * Whether a route answers HEAD, as its GET without the body (RFC 9110; Hono drops the body of a HEAD answer): a
 * unary read does. A subscription's GET does not: a HEAD would open a stream at the agent that nobody reads.
 */
const answersHead = (route: RestRoute): boolean => route.method === 'GET' && V1_OPERATIONS[route.operation].kind === 'unary';

/** The methods the binding's routes take, in the order `Allow` lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'DELETE'];

/**
 * The route a request takes: the first whose pattern and method fit (ids may contain `:`, so `/tasks/x:subscribe`
 * fits GetTask's pattern too, after SubscribeToTask's). HEAD takes the route GET would, when that route answers it.
 */
function routeFor(method: string, pathname: string): Match | undefined {
  if (method === 'HEAD') {
    const read = routeFor('GET', pathname);
    return read && answersHead(read.route) ? read : undefined;
  }
  const attempts: Array<{ path: string; tenant?: string }> = [{ path: pathname }];
  // A first segment that follows the id rule may be a tenant (`/{tenant}/tasks`); the untenanted reading wins when both fit.
  const tenanted = /^\/([A-Za-z0-9_.:-]{1,128})(\/.+)$/.exec(pathname);
  if (tenanted) attempts.push({ tenant: tenanted[1], path: tenanted[2] as string });
  for (const { path, tenant } of attempts) {
    for (const route of ROUTES) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(path);
      if (found) return { route, captures: found.slice(1), ...(tenant === undefined ? {} : { tenant }) };
    }
  }
  return undefined;
}

/** The route of a request; else the methods its path takes (its 405), none when no route has the path (its 404). */
function lookup(method: string, pathname: string): Lookup {
  const match = routeFor(method, pathname);
  if (match) return { match };
  const allowed = METHODS.filter((other) => routeFor(other, pathname) !== undefined);
  return allowed.length > 0 ? { allowed } : undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw A2AError.invalidParams('Invalid params: malformed percent-encoding in the path', [
      { field: 'path', description: 'malformed percent-encoding' },
    ]);
  }
}

function asObject(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  throw A2AError.invalidParams('Invalid params: the body must be a JSON object', [{ field: '(root)', description: 'must be a JSON object' }]);
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

function restJson(body: unknown, status = 200, headers: Record<string, string> = JSON_HEADERS): Response {
  return new Response(JSON.stringify(body), { status, headers });
}

/** HTTP+JSON answers a body of another media type with 415 Unsupported Media Type, whatever the code table says. */
const UNSUPPORTED_MEDIA_TYPE = 415;

export function restError(error: A2AError): Response {
  const { status, body } = toRestError(error);
  if (error.code === ErrorCode.ContentTypeNotSupported) {
    return restJson({ error: withFields(body.error, { code: UNSUPPORTED_MEDIA_TYPE }) }, UNSUPPORTED_MEDIA_TYPE);
  }
  return restJson(body, status, withFields(JSON_HEADERS, retryAfterHeader(error)));
}

/** One REST request as the pipeline carries it: the route it matched and its URL. */
interface RestCall {
  match: Match;
  url: URL;
}

/**
 * The A2A 1.0 HTTP+JSON binding, each route also under a `/{tenant}` prefix (passed on as `tenant`).
 * Bodies are JSON and must say so (`application/json` or `application/a2a+json`, else 415; an empty body
 * needs no type);
 * errors are google.rpc.Status with the matching HTTP status, a path of the binding that names no route
 * (404 `NOT_FOUND`) and a route asked with another method (405 `UNIMPLEMENTED`, with `Allow`) included;
 * streams are SSE of bare StreamResponses.
 */
export function restHandler(deps: V1SurfaceDeps): Handler<GatewayEnv> {
  const { options } = deps;
  const edge: CallEdge<RestCall> = { surface: 'rest', extensionsHeader: 'A2A-Extensions', shutdown: deps.shutdown, errorResponse: restError };
  const serve = operationCall<RestCall>(
    {
      async parse({ match, url }, c) {
        const versionError = checkV1Version(c.req.raw, options.lenientVersion);
        if (versionError) throw versionError;
        const { route, captures, tenant } = match;
        const params = await route.params({
          path: captures.map(decodeSegment),
          query: url.searchParams,
          body: () => readJsonObject(c, options.maxBodyBytes),
        });
        return { method: route.operation, params: tenant === undefined ? params : withFields(params, { tenant }) };
      },
      // DeleteTaskPushNotificationConfig is google.protobuf.Empty on this binding.
      result: (result) => restJson(result ?? {}),
      frame: (event) => ({ data: JSON.stringify(event) }),
      errorFrame: (error) => ({ event: 'error', data: JSON.stringify(toRestError(error).body) }),
    },
    (c) => v1OperationEnv(deps, () => publicBaseUrl(c.req.raw, options.publicUrl)),
    withFields(options, { shutdown: deps.shutdown }),
  );
  return async (c) => {
    const url = new URL(c.req.url);
    const found = lookup(c.req.method, url.pathname);
    // Only the binding's paths come here (isRestPath): one that names no route is the binding's 404.
    if (!found) return restRouteNotFound();
    if ('allowed' in found) return restMethodNotAllowed(found.allowed);
    const call: RestCall = { match: found.match, url };
    return runCall(c, edge, call, found.match.route.operation, (open) => serve(call, c, open));
  };
}

/** The body as a JSON object; an empty body counts as `{}` (e.g. `:cancel` without metadata). */
async function readJsonObject(c: Context<GatewayEnv>, maxBytes: number): Promise<Record<string, unknown>> {
  const text = await readBodyText(c.req.raw, maxBytes);
  if (text.trim() === '') return {};
  if (!declaresJson(c.req.raw.headers)) throw contentTypeNotSupported(c.req.raw.headers);
  const value = asObject(parseJsonBody(text, 'Parse error: the body is not valid JSON'));
  if (nestedDeeperThan(text)) throw tooDeeplyNested();
  return value;
}
