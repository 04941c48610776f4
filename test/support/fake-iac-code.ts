/**
 * A fake iac-code A2A 1.0 server for tests, faithful to the captures of the real server
 * (docs/iac-code.md: card, methods, SSE framing, the captured turn, history quirks), with fault injection.
 *
 *   const fake = await startFakeIacCode({ ...options });
 *   fake.url                 base URL, http://127.0.0.1:<port> (card at /.well-known/agent-card.json)
 *   fake.rpcUrl              the JSON-RPC endpoint the card advertises (`${url}${rpcPath}`)
 *   fake.requests            every request received: ReceivedRequest (headers, parsed body, rpcMethod, ...)
 *   fake.rpcRequests(m?)     the JSON-RPC ones, optionally only method m
 *   fake.tasks               stored tasks by id (plain 1.0 JSON as iac-code would return it)
 *   fake.injectFault(f, {times = 1, route = 'rpc', method})   fault for the next request(s) of that route (of that JSON-RPC method only, when given)
 *   fake.failPipelineState(f) the pipeline state route missing, failing or hanging from now on (undefined: as iac-code)
 *   await fake.close()       also drops connections left hanging by faults
 *
 * Options (all optional): `auth` {token, basicUsername, basicPassword, apiKey, apiKeyHeader} makes
 * every route (card included) answer 401 {"error":"Unauthorized"} without a matching credential;
 * `rpcPath` ('/'); `restFirst` lists HTTP+JSON before JSONRPC in supportedInterfaces;
 * `pushNotifications` (false, as in the captured card: push methods answer -32003); `frameDelayMs` (0) between turn events;
 * `rawThinking` adds the captured raw-thinking frame; `deleteResult` ('null' | 'empty');
 * `fault(request)` chooses a fault per request.
 *
 * iac-code's own routes (`/iac-code/readiness`, `/iac-code/pipeline/state`): fake-iac-code-routes.ts.
 * How answers are written (JSON bodies, SSE frames, the wire faults): fake-iac-code-wire.ts; the
 * credentials `auth` demands: fake-iac-code-auth.ts; tasks, turns and push configs: fake-iac-code-tasks.ts.
 *
 * Behaviour: 1.0 methods without `A2A-Version: 1.x` answer -32009; errors before the first stream
 * event are plain application/json (HTTP 200); SSE frames are `data: <json>\r\n\r\n`; every
 * successful turn is the captured sequence ending TASK_STATE_INPUT_REQUIRED; a message without
 * text fails the task ("A2A server currently accepts text input only."); a context is bound to the
 * folder (`metadata.iac_code.cwd`) of its first turn, and a turn naming another fails the task
 * ("ValueError: A2A context belongs to a different workspace"). A blocking SendMessage answers at the turn's
 * first INPUT_REQUIRED (a permission prompt included) or terminal status, the turn going on without it; one that
 * answers a waiting prompt never returns (`open`, captured) or returns at the turn's next pause (`parked`).
 *
 * Faults, chosen per request (first match, fake-iac-code-fault-choice.ts): injectFault() queue, header
 * `x-fake-fault`, a `[fault:<name> after=<n> ms=<n>]` directive in the message text, then options.fault();
 * the names are listed in fake-iac-code-faults.ts.
 * SubscribeToTask (captured): an active task's stream opens with the Task as it stands, then every later
 * event, and ends after the first input-required or terminal status; any other task is -32001 "Task <id>
 * is not active" (or "not found"), a plain JSON answer.
 * With `busyWaitMs`, one turn per context (docs/iac-code.md): a message to a context whose turn runs in another task
 * fails its own task after that wait ("Task is already working."); one into the running task is taken into its
 * history, and after the wait the task is failed so on every stream of it (the message's own ends there) while the
 * turn goes on (fake-iac-code-running-turns.ts refuseIntoRunning).
 * ReceivedRequest.closedByClient / .closed tell whether the client hung up before the response ended.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { authorized, type FakeIacCodeAuth } from './fake-iac-code-auth.js';
import type { EvictOptions } from './fake-iac-code-eviction.js';
import { publicCard, type CardShape } from './fake-iac-code-card.js';
import type { Json, TurnScript } from './fake-iac-code-data.js';
import type { PipelineStateFailure } from './fake-iac-code-journal.js';
import { serveIacCodeRoute } from './fake-iac-code-routes.js';
import { FaultChoice, missedAfterBreak, type InjectOptions } from './fake-iac-code-fault-choice.js';
import { LEAKY_MESSAGE, type Fault, type FaultName } from './fake-iac-code-faults.js';
import { EventQueue, RpcError } from './fake-iac-code-rpc.js';
import { TaskBook } from './fake-iac-code-tasks.js';
import { createAnswerWriter, envelope } from './fake-iac-code-wire.js';

export type { Fault, FaultName } from './fake-iac-code-faults.js';

export interface ReceivedRequest {
  httpMethod: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body?: unknown;
  rpcMethod?: string;
  rpcId?: unknown;
  fault?: Fault;
  /** The client closed the connection before the response was complete. */
  closedByClient: boolean;
  /** Settles when the exchange is over: 'finished', 'client-closed' or 'server-killed'. */
  closed: Promise<'finished' | 'client-closed' | 'server-killed'>;
}

export interface FakeIacCodeOptions {
  auth?: FakeIacCodeAuth;
  rpcPath?: string;
  restFirst?: boolean;
  /** The run mode its card announces (iac-code's `IAC_CODE_MODE`); in `pipeline` its turns are pipeline turns (fake-iac-code-pipeline.ts), as they are for a message with `iac_code.run_mode: "pipeline"`. */
  runMode?: 'normal' | 'pipeline';
  pushNotifications?: boolean;
  frameDelayMs?: number;
  rawThinking?: boolean;
  /** What the model says and writes in each turn (default: the captured turn's words). */
  script?: TurnScript;
  /**
   * How a permission prompt waits: `open` as captured (the prompting stream stays open, the answering
   * stream ends with `{}`), or `parked` as newer servers do it (read in iac-code's source: the prompting
   * stream ends after the prompt, the rest of the turn goes to the answering stream, which ends with the
   * turn's INPUT_REQUIRED).
   */
  permissionWait?: 'open' | 'parked';
  /**
   * In pipeline mode, whether the deployment waits on its user's confirmation after the candidate choice
   * (`deployment_confirmation`, as iac-code's `selling_solution_first` pipeline asks it; fake-iac-code-pipeline.ts).
   */
  confirmsDeployment?: boolean;
  deleteResult?: 'null' | 'empty';
  /**
   * iac-code's one turn per context: a message to a context whose turn runs waits this long (iac-code: 1000), then its
   * task fails "Task is already working." (a message into the running task itself: fake-iac-code-tasks.ts
   * intoRunningTurn). Unset: the fake runs turns of one context side by side, and refuses a message into a running task at once.
   */
  busyWaitMs?: number;
  fault?: (request: ReceivedRequest) => Fault | undefined;
}

export interface FakeIacCode {
  url: string;
  rpcUrl: string;
  requests: ReceivedRequest[];
  rpcRequests(method?: string): ReceivedRequest[];
  tasks: Map<string, Json>;
  /** As if iac-code restarted: every task and waiting turn forgotten. */
  restart(): void;
  /** As if iac-code evicted the context after it sat idle: its tasks are tombstoned (fake-iac-code-eviction.ts). */
  evictContext(contextId: string, options?: EvictOptions): void;
  injectFault(fault: Fault | FaultName, options?: InjectOptions): void;
  /** How `/iac-code/pipeline/state` answers from now on: as iac-code does (undefined), or missing, failing, hanging. */
  failPipelineState(failure: PipelineStateFailure | undefined): void;
  close(): Promise<void>;
}

const CARD_PATH = '/.well-known/agent-card.json';
const STREAM_METHODS = new Set(['SendStreamingMessage', 'SubscribeToTask']);
const V1_METHODS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);
export async function startFakeIacCode(options: FakeIacCodeOptions = {}): Promise<FakeIacCode> {
  const requests: ReceivedRequest[] = [];
  const faults = new FaultChoice<ReceivedRequest>(options.fault);
  let closing = false;
  const { killed, write, sendJson, pumpSse } = createAnswerWriter();
  let shape: CardShape = {
    origin: '',
    rpcPath: options.rpcPath ?? '/',
    restFirst: options.restFirst ?? false,
    runMode: options.runMode ?? 'normal',
    pushNotifications: options.pushNotifications ?? false,
  };
  const book = new TaskBook({
    card: () => shape,
    pushNotifications: shape.pushNotifications,
    frameDelayMs: options.frameDelayMs ?? 0,
    rawThinking: options.rawThinking ?? false,
    ...(options.script ? { script: options.script } : {}),
    deleteResult: options.deleteResult ?? 'null',
    permissionWait: options.permissionWait ?? 'open',
    confirmsDeployment: options.confirmsDeployment ?? false,
    ...(options.busyWaitMs === undefined ? {} : { busyWaitMs: options.busyWaitMs }),
  });

  async function handleRpc(res: ServerResponse, record: ReceivedRequest): Promise<void> {
    const body = record.body;
    const reply = (id: unknown, member: Json, fault?: Fault): Promise<void> => sendJson(res, record, envelope(id, member), fault);
    if (Array.isArray(body)) return reply(null, { error: { code: -32600, message: 'Batch requests are not supported' } });
    if (typeof body !== 'object' || body === null)
      return reply(null, { error: { code: -32700, message: 'Expecting value: line 1 column 1 (char 0)' } });
    const request = body as Json;
    record.rpcMethod = typeof request.method === 'string' ? request.method : undefined;
    record.rpcId = request.id;
    if (request.jsonrpc !== '2.0')
      return reply(request.id ?? null, { error: { code: -32600, message: "Invalid request: 'jsonrpc' must be exactly '2.0'" } });
    const method = record.rpcMethod ?? '';
    if (!V1_METHODS.has(method)) return reply(request.id, { error: { code: -32601, message: 'Method not found' } });
    const version = String(record.headers['a2a-version'] ?? '').trim() || '0.3';
    if (!/^1(\.\d+)*$/.test(version)) {
      const error = new RpcError(
        -32009,
        `A2A version '${version}' is not supported by this handler. Expected version '1.0'.`,
        'VERSION_NOT_SUPPORTED',
      );
      return reply(request.id, { error: error.toJson() });
    }
    const fault = faults.choose(record, 'rpc');
    record.fault = fault;
    if (method === 'SubscribeToTask' && fault) book.subscriberCame(String((request.params as Json | undefined)?.id));
    if (fault?.name === 'hang-before-headers') return void (await record.closed);
    if (fault?.name === 'http-500') {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
      return;
    }
    if (fault?.name === 'http-401') {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' }).end('Unauthorized');
      return;
    }
    const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as Json;
    const replyId = fault?.name === 'wrong-id' ? 'wrong-id' : request.id;
    try {
      if (fault?.name === 'internal-error') throw new RpcError(-32603, LEAKY_MESSAGE);
      if (STREAM_METHODS.has(method)) {
        if (method === 'SubscribeToTask') return await pumpSse(res, record, book.subscribe(params), replyId, fault);
        const answering = book.answerPermission(params);
        if (answering) return await pumpSse(res, record, answering, replyId, fault);
        const refused = book.intoRunningTurn(params);
        if (refused) return await pumpSse(res, record, refused, replyId, fault);
        const { task, events } = book.prepareTurn(params);
        const queue = new EventQueue();
        void book.startTurn(task, events, queue, missedAfterBreak(fault));
        return await pumpSse(res, record, queue, replyId, fault);
      }
      if (fault?.name === 'non-json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html><body>502 Bad Gateway</body></html>');
        return;
      }
      const result = await book.unary(method, params);
      return await reply(replyId, { result: fault?.name === 'invalid-result' ? { task: { id: 42 } } : result }, fault);
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      return reply(replyId, { error: error.toJson() }, fault);
    }
  }

  async function handleCard(req: IncomingMessage, res: ServerResponse, record: ReceivedRequest): Promise<void> {
    const fault = faults.choose(record, 'card');
    record.fault = fault;
    if (fault?.name === 'hang-before-headers') return void (await record.closed);
    if (fault?.name === 'http-500') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
    const body = fault?.name === 'non-json' ? '<html>oops</html>' : JSON.stringify(publicCard(shape));
    const etag = `"sha256-${createHash('sha256').update(body).digest('hex')}"`;
    const headers = { 'cache-control': 'public, max-age=60', etag, 'last-modified': new Date().toUTCString() };
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304, headers).end();
    res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    await write(res, body, fault);
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let settle!: (how: 'finished' | 'client-closed' | 'server-killed') => void;
    const record: ReceivedRequest = {
      httpMethod: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0] ?? '/',
      query: new URL(req.url ?? '/', 'http://fake').searchParams,
      headers: req.headers,
      closedByClient: false,
      closed: new Promise((resolve) => (settle = resolve)),
    };
    requests.push(record);
    res.on('close', () => {
      if (res.writableFinished) return settle('finished');
      if (killed.has(record)) return settle('server-killed');
      if (!closing) record.closedByClient = true;
      settle('client-closed');
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      record.body = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      record.body = text;
    }
    if (!authorized(options.auth, req.headers)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Unauthorized"}');
      return;
    }
    if (record.path === CARD_PATH && req.method === 'GET') return handleCard(req, res, record);
    if (req.method === 'GET' && serveIacCodeRoute(record.path, record.query, res, book.tasks, book.journal)) return;
    if (record.path === shape.rpcPath) {
      if (req.method === 'POST') return handleRpc(res, record);
      return void res.writeHead(405, { allow: 'POST', 'content-type': 'text/plain' }).end('Method Not Allowed');
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  shape = { ...shape, origin: `http://127.0.0.1:${port}` };

  return {
    url: shape.origin,
    rpcUrl: `${shape.origin}${shape.rpcPath}`,
    requests,
    rpcRequests: (method) => requests.filter((r) => r.rpcMethod !== undefined && (method === undefined || r.rpcMethod === method)),
    tasks: book.tasks,
    restart: () => book.forgetAll(),
    evictContext: (contextId, evictOptions) => book.evict(contextId, evictOptions),
    injectFault: (fault, injectOptions) => faults.inject(fault, injectOptions),
    failPipelineState(failure) {
      book.journal.failure = failure;
    },
    async close() {
      closing = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
