import type { Context, Handler } from 'hono';
import { A2AError, ErrorCode, retryAfterHeader, toJsonRpcError, withFields, type JsonRpcErrorObject } from '../../model/index.js';
import { exactId, jsonRpcText } from '../../protocol/jsonrpc-exact-ids.js';
import { CONTENT_CODING_REFUSED_STATUS, refusedForItsCoding } from './body-refusal.js';
import { callerLeft } from '../../observability/caller-left.js';
import { BodyCut, callerLeftAnswer, parseJsonBody, readBodyText } from './call-pipeline.js';
import { contentTypeNotSupported, declaresJson } from './content-type.js';
import type { GatewayEnv, RequestLogFields } from './env.js';
import { nestedDeeperThan, tooDeeplyNested } from './json-depth.js';
import type { JsonRpcDialect, JsonRpcId, JsonRpcRequest } from './jsonrpc.js';
import { noteLog } from './log-fields.js';
import { noteJsonRpcId } from './read-request-ids.js';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

const UNAUTHORIZED_BODY = JSON.stringify({ error: 'Unauthorized' });

/** The 401 every surface answers a caller without valid credentials (as iac-code: no WWW-Authenticate). */
export const unauthorized = (): Response => new Response(UNAUTHORIZED_BODY, { status: 401, headers: JSON_HEADERS });

export interface JsonRpcErrorEnvelope {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}

/** A 1.0 error envelope, also used as the data of an `event: error` SSE frame. */
export function jsonRpcErrorBody(id: JsonRpcId, error: A2AError): JsonRpcErrorEnvelope {
  return { jsonrpc: '2.0', id, error: toJsonRpcError(error) };
}

/**
 * JSON-RPC answers use HTTP 200, errors included (the status line is the transport's, not the call's),
 * but for a call the gateway refuses for now: like the 401 it is the transport's answer, 429 (a client
 * over its cap) or 503 (the gateway's store out of reach) with `Retry-After`, so that clients and proxies
 * back off; the body is the same error envelope.
 */
export function jsonRpcError(id: JsonRpcId, error: A2AError): Response {
  const body = jsonRpcText(jsonRpcErrorBody(id, error));
  if (error.retryAfterSeconds === undefined) return new Response(body, { status: 200, headers: JSON_HEADERS });
  return new Response(body, { status: error.statusInfo.httpStatus, headers: withFields(JSON_HEADERS, retryAfterHeader(error)) });
}

/** The 0.2.5 task state of the answers made by jsonRpcResult that carry a 0.2.5 Task, for the metrics (task-state-answers). */
const v025TaskStates = new WeakMap<Response, string>();

/** The state of the 0.2.5 Task a JSON-RPC answer of this module carries (a facade's `message/send`), if it does. */
export const answeredV025TaskState = (response: Response): string | undefined => v025TaskStates.get(response);

export function jsonRpcResult(id: JsonRpcId, result: unknown): Response {
  const body = { jsonrpc: '2.0' as const, id, result: result === undefined ? null : result };
  const response = new Response(jsonRpcText(body), { status: 200, headers: JSON_HEADERS });
  const state = v025TaskStateOf(result);
  if (state !== undefined) v025TaskStates.set(response, state);
  return response;
}

/** `status.state` of a 0.2.5 Task (`kind: 'task'`); a 1.0 answer (`{ task }`) has no `kind`. */
function v025TaskStateOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null || (result as { kind?: unknown }).kind !== 'task') return undefined;
  const state = (result as { status?: { state?: unknown } }).status?.state;
  return typeof state === 'string' ? state : undefined;
}

/**
 * Any JSON number is an id: one past a double's range parses to ±Infinity, and is answered as written (exactId),
 * like every other number JSON.parse does not hold as written.
 */
const isJsonRpcId = (value: unknown): value is JsonRpcId => value === null || typeof value === 'string' || typeof value === 'number';

const MISSING_ID = "Invalid request: 'id' is required (A2A has no notifications)";

/** Checks the envelope read from `text`; throws -32600 with the id echoed when it is usable. */
function toRequest(payload: unknown, text: string): JsonRpcRequest {
  if (Array.isArray(payload)) throw A2AError.invalidRequest('Batch requests are not supported');
  if (typeof payload !== 'object' || payload === null) {
    throw A2AError.invalidRequest('Invalid request: the body must be a JSON-RPC request object');
  }
  const envelope = payload as Record<string, unknown>;
  if (envelope.id !== undefined && !isJsonRpcId(envelope.id)) {
    throw A2AError.invalidRequest("Invalid request: 'id' must be a string, a number or null");
  }
  const id = exactId(envelope.id ?? null, text);
  // A method it names is answered in the form that method answers errors (a 0.2.5 stream's: one SSE frame).
  const method = typeof envelope.method === 'string' && envelope.method.length > 0 ? envelope.method : undefined;
  if (envelope.jsonrpc !== '2.0') throw new EnvelopeError(A2AError.invalidRequest("Invalid request: 'jsonrpc' must be exactly '2.0'"), id, method);
  if (method === undefined) throw new EnvelopeError(A2AError.invalidRequest("Invalid request: 'method' must be a non-empty string"), id);
  // Without `id` this is a JSON-RPC notification, which wants no answer; A2A defines none (every method
  // answers), so running it would be a turn whose result nobody can read. `id: null` is a request.
  if (envelope.id === undefined) throw new EnvelopeError(A2AError.invalidRequest(MISSING_ID), null, method);
  return { jsonrpc: '2.0', id, method, params: envelope.params };
}

class EnvelopeError extends Error {
  constructor(
    readonly error: A2AError,
    readonly id: JsonRpcId,
    /** The method, when the envelope named one before it was refused. */
    readonly method?: string,
  ) {
    super(error.message);
  }
}

async function parseRequest(request: Request, maxBodyBytes: number): Promise<JsonRpcRequest> {
  const text = await readBodyText(request, maxBodyBytes);
  const rpc = toRequest(parseJsonBody(text), text);
  if (nestedDeeperThan(text)) throw new EnvelopeError(tooDeeplyNested(), rpc.id, rpc.method);
  return rpc;
}

/** An envelope error in the form its method answers errors, when the method is known and its dialect has one. */
function refusal(
  dialects: readonly Pick<JsonRpcDialect, 'handles' | 'refuse'>[],
  id: JsonRpcId,
  method: string | undefined,
  error: A2AError,
): Response {
  const dialect = method === undefined ? undefined : dialects.find((candidate) => candidate.handles(method));
  return dialect?.refuse && method !== undefined ? dialect.refuse({ id, method }, error) : jsonRpcError(id, error);
}

function rejectContentType(c: Context<GatewayEnv>, answer: (error: A2AError) => Response, surface: EndpointSurface): Response {
  noteLog(c, { surface, errorCode: ErrorCode.ContentTypeNotSupported });
  return answer(contentTypeNotSupported(c.req.raw.headers));
}

/** The first dialect that would let the caller through, if any; answered at once unless a gate must verify a token. */
function admitting(dialects: JsonRpcDialect[], headers: Headers): JsonRpcDialect | undefined | Promise<JsonRpcDialect | undefined> {
  const verifying: Promise<boolean>[] = [];
  const verifiers: JsonRpcDialect[] = [];
  for (const dialect of dialects) {
    const answer = dialect.admits?.(headers) ?? true;
    if (answer === true) {
      // Checks already started are no longer awaited: a failure of theirs must not go unhandled.
      for (const pending of verifying) pending.catch(() => undefined);
      return dialect;
    }
    if (answer !== false) {
      verifying.push(answer);
      verifiers.push(dialect);
    }
  }
  if (verifying.length === 0) return undefined;
  return Promise.all(verifying).then((answers) => verifiers[answers.indexOf(true)]);
}

/**
 * Names the caller of an answer the endpoint gives itself (an envelope error), for its line and the metrics, as the
 * dialect that admitted it does; when that one names nobody (it admits anyone: the 1.0 dialect without `auth.*`),
 * as the first other dialect whose credentials the caller presents does (the facade's named `X-API-KEY`), so the
 * error is counted under the client its calls are.
 */
async function nameCaller(c: Context<GatewayEnv>, admitter: JsonRpcDialect, dialects: JsonRpcDialect[]): Promise<void> {
  await admitter.nameCaller?.(c);
  if (c.get('client') !== undefined) return;
  for (const dialect of dialects) {
    if (dialect === admitter || !dialect.nameCaller || !(await dialect.presents?.(c.req.raw.headers))) continue;
    return dialect.nameCaller(c);
  }
}

/** The surface a refused caller meant and its dialect, when one tells (its credentials, the version it asks for). */
function meantDialect(dialects: JsonRpcDialect[], request: Request): { surface: RequestLogFields['surface']; dialect: JsonRpcDialect } | undefined {
  for (const dialect of dialects) {
    const surface = dialect.meantBy?.(request);
    if (surface !== undefined) return { surface, dialect };
  }
  return undefined;
}

/**
 * Another protocol version's methods, served by an endpoint at another path (the facade under its base path,
 * the 1.0 surface at `POST /`): a caller that posts one here is told whose method it is and where it is served.
 */
export interface ServedElsewhere extends Pick<JsonRpcDialect, 'handles' | 'refuse'> {
  /** What the method is and where it is served, after "{method} is ": "an A2A 1.0 method, served at POST / …". */
  readonly servedAs: string;
}

/** What a request refused before a dialect took it is counted and logged under (the log's `surface`, the metrics' label). */
type EndpointSurface = Extract<RequestLogFields['surface'], 'jsonrpc' | 'v025'>;

export interface JsonRpcEndpointOptions {
  maxBodyBytes: number;
  /**
   * The surface of an endpoint that serves one version (the facade's paths: `v025`); absent: the endpoint
   * shared by the versions at `POST /` (`jsonrpc`), which counts a request refused before its method is known
   * (but for a 401, or a caller gone before its body's end, a dialect's `meantBy` tells).
   */
  surface?: EndpointSurface;
  /** The other versions' methods this endpoint does not serve; absent: every unknown method is a bare -32601. */
  servedElsewhere?: readonly ServedElsewhere[];
  /**
   * The method a request is answered as when its body names none that could be read (not JSON, a batch, not an
   * object, a body refused unread): the facade's endpoints answer in 0.2.5's form, and its `/stream`, where Bailian
   * posts message/stream, in the one SSE frame a 0.2.5 streaming client reads. Absent: the plain error envelope.
   */
  untoldMethod?: string;
}

/**
 * The `POST /` JSON-RPC endpoint shared by every protocol version: it owns the envelope (body size,
 * UTF-8, JSON, nesting depth, no batches, `jsonrpc`/`method`/`id`, no notifications) and hands each
 * request to the first dialect that knows the method. Envelope errors carry no version-specific data, so
 * every dialect's callers read them. A body that is not JSON and does not declare itself JSON is -32005
 * (the Content-Type explains it); a dialect may require the declaration of every request (1.0 does).
 */
export function jsonRpcEndpoint(dialects: JsonRpcDialect[], options: JsonRpcEndpointOptions): Handler<GatewayEnv> {
  // A method of a version served elsewhere is refused in that version's form, envelope errors included.
  const answerers: Pick<JsonRpcDialect, 'handles' | 'refuse'>[] = [...dialects, ...(options.servedElsewhere ?? [])];
  const surface = options.surface ?? 'jsonrpc';
  return async (c: Context<GatewayEnv>) => {
    const admission = admitting(dialects, c.req.raw.headers);
    const admitter = admission instanceof Promise ? await admission : admission;
    if (admitter === undefined) {
      const meant = meantDialect(dialects, c.req.raw);
      noteLog(c, { surface: meant?.surface ?? surface });
      return meant?.dialect.unauthorized?.() ?? unauthorized();
    }
    let request: JsonRpcRequest;
    try {
      request = await parseRequest(c.req.raw, options.maxBodyBytes);
    } catch (error) {
      // Refused before a dialect took it: its line and metrics still name the client its credentials are.
      await nameCaller(c, admitter, dialects);
      if (error instanceof BodyCut && callerLeft(c)) {
        noteLog(c, { surface: meantDialect(dialects, c.req.raw)?.surface ?? surface });
        return callerLeftAnswer(c);
      }
      const { a2aError, id, method } =
        error instanceof EnvelopeError
          ? { a2aError: error.error, id: error.id, method: error.method }
          : { a2aError: error instanceof A2AError ? error : A2AError.parse('Parse error'), id: null, method: undefined };
      const answer = (told: A2AError): Response => refusal(answerers, id, method ?? options.untoldMethod, told);
      if (a2aError.code === ErrorCode.ParseError && !declaresJson(c.req.raw.headers)) return rejectContentType(c, answer, surface);
      noteLog(c, { surface, errorCode: a2aError.code });
      // A body sent in a content coding could not be read at all: like the 401, the transport's refusal.
      if (refusedForItsCoding(c.req.raw)) {
        return new Response(jsonRpcText(jsonRpcErrorBody(id, a2aError)), { status: CONTENT_CODING_REFUSED_STATUS, headers: JSON_HEADERS });
      }
      return answer(a2aError);
    }
    noteJsonRpcId(c.req.raw, request.id);
    const dialect = dialects.find((candidate) => candidate.handles(request.method));
    if (!dialect) {
      await nameCaller(c, admitter, dialects);
      return notServedHere(c, options.servedElsewhere ?? [], request, surface);
    }
    // Dialects render their own errors (call-pipeline.ts); one that throws is a bug, which the app's error
    // handler answers in the dialect's version with this request's id (unexpected-failure.ts).
    const answer = await dialect.handle(request, c);
    if (answer.status !== UNAUTHORIZED || dialect.servedAs === undefined || !dialect.sentNone?.(c.req.raw.headers)) return answer;
    return (await otherDialectsCaller(dialects, dialect, c.req.raw.headers)) ? wrongDialect(c, dialects, request, dialect.servedAs) : answer;
  };
}

const UNAUTHORIZED = 401;

/** Whether another dialect takes the credentials the caller presents (checked only once refused: a token may cost a verification). */
async function otherDialectsCaller(dialects: JsonRpcDialect[], refusing: JsonRpcDialect, headers: Headers): Promise<boolean> {
  for (const dialect of dialects) {
    if (dialect !== refusing && (await dialect.presents?.(headers))) return true;
  }
  return false;
}

/** How much of a caller's method name is repeated, to it and in the log. */
const MAX_METHOD_CHARS = 100;

/**
 * A caller's method name as the log keeps it: as posted (a typo, `message/sned`, is what the operator looks for; the
 * metrics count it as `other`), cut, and on one line: a control or format character, or half a character cut in two, reads `?`.
 */
const loggedMethod = (method: string): string => method.slice(0, MAX_METHOD_CHARS).replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, '?');

/** What a caller of a method served otherwise is told: whose method it is and how it is served (`servedAs`). */
const whoseMethod = (method: string, servedAs: string): string => `${method} is ${servedAs}`;

/** A method of one version called with the other's credentials: told so in the method's error form, not as wrong credentials. */
function wrongDialect(c: Context<GatewayEnv>, dialects: JsonRpcDialect[], request: JsonRpcRequest, servedAs: string): Response {
  const method = request.method.slice(0, MAX_METHOD_CHARS);
  const error = A2AError.invalidRequest(whoseMethod(method, servedAs));
  noteLog(c, { method: loggedMethod(request.method), errorCode: error.code });
  return refusal(dialects, request.id, method, error);
}

/**
 * A method no dialect here serves: -32601. One of another version, served at another path, says so and where, in
 * that version's error form (a 0.2.5 streaming method: the one SSE frame its client reads), so that a caller at the
 * wrong version's endpoint learns where to go rather than that the method does not exist.
 */
function notServedHere(c: Context<GatewayEnv>, elsewhere: readonly ServedElsewhere[], request: JsonRpcRequest, surface: EndpointSurface): Response {
  const method = request.method.slice(0, MAX_METHOD_CHARS);
  noteLog(c, { surface, method: loggedMethod(request.method), errorCode: ErrorCode.MethodNotFound });
  const other = elsewhere.find((candidate) => candidate.handles(request.method));
  if (!other) return jsonRpcError(request.id, A2AError.methodNotFound());
  return refusal([other], request.id, method, A2AError.methodNotFound().toldAs(whoseMethod(method, other.servedAs)));
}
