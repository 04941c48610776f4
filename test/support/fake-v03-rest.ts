/**
 * A hand-written A2A 0.3 agent that offers ONLY the HTTP+JSON binding: its card prefers
 * `HTTP+JSON` (plus a gRPC interface the gateway cannot use), and nothing answers JSON-RPC.
 *
 * Built from these sources (read, not copied):
 * - A2A v0.3.0 specification (a2aproject/A2A docs/specification.md §3.2.3 and §7) and
 *   specification/grpc/a2a.proto: routes `POST /v1/message:send`, `POST /v1/message:stream` (SSE),
 *   `GET /v1/tasks/{id}?historyLength=`, `POST /v1/tasks/{id}:cancel`, `GET /v1/tasks/{id}:subscribe`,
 *   `/v1/tasks/{id}/pushNotificationConfigs[/{configId}]`, `GET /v1/card`.
 * - The ProtoJSON of that proto as a2a-js's v0.3 compat layer writes and reads it
 *   (compat/v0_3/types/pb/a2a.ts, server/express rest_handler.ts, client/transports/rest_transport.ts):
 *   Part `{text}` | `{file: {fileWithUri|fileWithBytes, mimeType}}` | `{data: {data}}`; Message
 *   `content`; TaskStatus `message`; `TASK_STATE_*` (CANCELLED) and `ROLE_*`; SendMessageResponse and
 *   StreamResponse oneofs `task|message|statusUpdate|artifactUpdate` with `final` on status updates;
 *   201 for message:send and push config creation, 204 for DELETE; errors as `{code, message}` with
 *   JSON-RPC codes (a2a-js) or a bare `{message}` (a2a-python 0.3).
 *
 *   const agent = await startFakeV03Rest();
 *   agent.url              base URL (the card is at /.well-known/agent-card.json)
 *   agent.restUrl          the HTTP+JSON interface: routes live at `${restUrl}/v1/...`
 *   agent.requests         every request: method, path, query, headers, parsed body
 *   agent.streamsClosedByClient()  how many SSE responses the client hung up on
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultRestCard, extendedCard } from './fake-v03-rest-cards.js';

export { defaultRestCard, REST_AGENT_NAME } from './fake-v03-rest-cards.js';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

type Json = Record<string, unknown>;

export interface FakeV03Rest {
  url: string;
  restUrl: string;
  requests: FakeRequest[];
  /** Requests to `${restUrl}/v1/...`, by route suffix (e.g. 'message:send'). */
  routed(suffix: string): FakeRequest[];
  tasks: Map<string, Json>;
  streamsClosedByClient(): number;
  close(): Promise<void>;
}

export interface FakeV03RestOptions {
  /** Card fields over the default 0.3 HTTP+JSON-only card. */
  card?: Json;
  /**
   * Serve `tasks/{id}:subscribe` on this method only, as servers did: a2a-js 0.3.7–0.3.12 POST (its GET route for a
   * task then reads `{id}:subscribe` as the id: 404 -32001), a2a-python 0.3 GET (405 otherwise). Default: both.
   */
  subscribeOn?: 'GET' | 'POST';
}

const PREFIX = '/agent/v1';

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const textOf = (message: Json | undefined): string =>
  ((message?.content as Json[] | undefined) ?? []).map((part) => (typeof part.text === 'string' ? part.text : '')).join('');

const agentMessage = (text: string, ids: { taskId?: string; contextId: string }, n: number): Json => ({
  messageId: `agent-${n}`,
  role: 'ROLE_AGENT',
  contextId: ids.contextId,
  ...(ids.taskId ? { taskId: ids.taskId } : {}),
  content: [{ text }],
});

const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELLED', 'TASK_STATE_REJECTED']);
const stateOf = (task: Json): string => String((task.status as Json).state);

export async function startFakeV03Rest(options: FakeV03RestOptions = {}): Promise<FakeV03Rest> {
  const requests: FakeRequest[] = [];
  const tasks = new Map<string, Json>();
  const pushConfigs = new Map<string, Map<string, Json>>();
  /** The open streams of turns sent not waiting, by task, until the task ends. */
  const working = new Map<string, ServerResponse>();
  let url = '';
  let counter = 0;
  let hungUp = 0;

  function sse(res: ServerResponse, events: Json[], end: boolean): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let finished = false;
    res.on('finish', () => (finished = true));
    res.on('close', () => void (finished ? undefined : hungUp++));
    for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
    if (end) res.end();
  }

  /** The stream of a turn sent not waiting, told the task's end: its artifacts, then its last status. */
  function endWorkingStream(task: Json): void {
    const res = working.get(task.id as string);
    if (!res) return;
    working.delete(task.id as string);
    const ids = { taskId: task.id, contextId: task.contextId };
    for (const artifact of (task.artifacts as Json[] | undefined) ?? [])
      res.write(`data: ${JSON.stringify({ artifactUpdate: { ...ids, artifact } })}\n\n`);
    res.end(`data: ${JSON.stringify({ statusUpdate: { ...ids, status: task.status, final: true } })}\n\n`);
  }

  function newTask(message: Json, state: string): Json {
    const n = ++counter;
    const task: Json = {
      id: `task-${n}`,
      contextId: typeof message.contextId === 'string' && message.contextId ? message.contextId : `ctx-${n}`,
      status: { state, timestamp: '2025-07-01T10:00:00.000Z' },
      history: [{ ...message, taskId: `task-${n}` }],
    };
    tasks.set(task.id as string, task);
    return task;
  }

  function complete(task: Json, text: string): Json {
    const ids = { taskId: task.id as string, contextId: task.contextId as string };
    const reply = agentMessage(text, ids, ++counter);
    task.status = { state: 'TASK_STATE_COMPLETED', message: reply, timestamp: '2025-07-01T10:00:01.000Z' };
    // As a2a-js keeps a task: the status message goes into its history too.
    task.history = [...((task.history as Json[] | undefined) ?? []), reply];
    task.artifacts = [{ artifactId: 'reply', parts: [{ text }] }];
    endWorkingStream(task);
    return task;
  }

  function sendMessage(body: Json, res: ServerResponse): void {
    const message = body.message as Json;
    const text = textOf(message);
    if (typeof message.taskId === 'string' && message.taskId && !tasks.has(message.taskId)) {
      return json(res, 404, { code: -32001, message: `Task not found: ${message.taskId}` });
    }
    if (text === 'direct') {
      return json(res, 201, { message: agentMessage('a direct answer', { contextId: 'ctx-direct' }, ++counter) });
    }
    const task = newTask(message, 'TASK_STATE_WORKING');
    if ((body.configuration as Json | undefined)?.blocking !== true) return json(res, 201, { task });
    json(res, 201, { task: complete(task, `echo: ${text}`) });
  }

  /**
   * Opens with an update (no Task), streams the reply in two chunks, then `final` and stays open. A turn sent not
   * waiting (`blocking: false`) opens with its Task, WORKING, and works on, as a send of it does: its stream says
   * nothing more until the task ends (subscribed to or canceled).
   */
  function streamMessage(body: Json, res: ServerResponse): void {
    const message = body.message as Json;
    const task = newTask(message, 'TASK_STATE_WORKING');
    if ((body.configuration as Json | undefined)?.blocking === false) {
      sse(res, [{ task: structuredClone(task) }], false);
      working.set(task.id as string, res);
      return;
    }
    const ids = { taskId: task.id, contextId: task.contextId };
    const text = textOf(message);
    complete(task, `echo: ${text}`);
    sse(
      res,
      [
        { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING' } } },
        { artifactUpdate: { ...ids, artifact: { artifactId: 'reply', parts: [{ text: 'echo: ' }] } } },
        { artifactUpdate: { ...ids, artifact: { artifactId: 'reply', parts: [{ text }] }, append: true, lastChunk: true } },
        { statusUpdate: { ...ids, status: task.status, final: true } },
      ],
      false,
    );
  }

  /** The snapshot first (as a2a-js does), then the rest of the turn, then the end of the stream. */
  function subscribe(task: Json, res: ServerResponse): void {
    if (TERMINAL.has(stateOf(task))) return json(res, 400, { code: -32004, message: 'Task is in a terminal state' });
    const snapshot = structuredClone(task);
    const ids = { taskId: task.id, contextId: task.contextId };
    complete(task, 'finished later');
    sse(
      res,
      [
        { task: snapshot },
        { artifactUpdate: { ...ids, artifact: { artifactId: 'reply', parts: [{ text: 'finished later' }] } } },
        { statusUpdate: { ...ids, status: task.status, final: true } },
      ],
      true,
    );
  }

  function cancel(task: Json, res: ServerResponse): void {
    if (TERMINAL.has(stateOf(task))) return json(res, 400, { code: -32002, message: 'Task cannot be canceled' });
    task.status = { state: 'TASK_STATE_CANCELLED', timestamp: '2025-07-01T10:00:02.000Z' };
    endWorkingStream(task);
    json(res, 200, task);
  }

  function pushConfig(method: string, taskId: string, configId: string | undefined, body: unknown, res: ServerResponse): void {
    const configs = pushConfigs.get(taskId) ?? new Map<string, Json>();
    pushConfigs.set(taskId, configs);
    if (method === 'POST' && configId === undefined) {
      const inner = { ...((body as Json).pushNotificationConfig as Json) };
      inner.id = typeof inner.id === 'string' && inner.id ? inner.id : `cfg-${++counter}`;
      const stored = { name: `tasks/${taskId}/pushNotificationConfigs/${String(inner.id)}`, pushNotificationConfig: inner };
      configs.set(inner.id as string, stored);
      return json(res, 201, stored);
    }
    if (method === 'GET' && configId === undefined) return json(res, 200, { configs: [...configs.values()] });
    const stored = configId === undefined ? undefined : configs.get(configId);
    if (!stored) return json(res, 404, { message: 'Push notification config not found' });
    if (method === 'DELETE') {
      configs.delete(configId as string);
      res.writeHead(204).end();
      return;
    }
    json(res, 200, stored);
  }

  function route(request: FakeRequest, res: ServerResponse): void {
    const { method, path, body } = request;
    if (method === 'GET' && path === '/.well-known/agent-card.json') return json(res, 200, { ...defaultRestCard(url), ...options.card });
    if (!path.startsWith(`${PREFIX}/`)) return json(res, 404, { message: `no route ${method} ${path}` });
    const rest = path.slice(PREFIX.length);
    if (method === 'GET' && rest === '/card') return json(res, 200, extendedCard(url));
    if (method === 'POST' && rest === '/message:send') return sendMessage(body as Json, res);
    if (method === 'POST' && rest === '/message:stream') return streamMessage(body as Json, res);
    const match = /^\/tasks\/([^/:]+)(:cancel|:subscribe|\/pushNotificationConfigs(?:\/([^/]+))?)?$/.exec(rest);
    if (!match) return json(res, 404, { message: `no route ${method} ${path}` });
    const [, pathId = '', action, configId] = match;
    const taskId = decodeURIComponent(pathId);
    const task = tasks.get(taskId);
    if (!task) return json(res, 404, action === ':cancel' ? { message: 'Task not found' } : { code: -32001, message: `Task not found: ${taskId}` });
    if (action === ':cancel' && method === 'POST') return cancel(task, res);
    if (action === ':subscribe' && options.subscribeOn === 'POST' && method !== 'POST') {
      return json(res, 404, { code: -32001, message: `Task not found: ${taskId}:subscribe` });
    }
    if (action === ':subscribe' && options.subscribeOn === 'GET' && method !== 'GET') return json(res, 405, { detail: 'Method Not Allowed' });
    if (action === ':subscribe') return subscribe(task, res);
    if (action?.startsWith('/push')) return pushConfig(method, task.id as string, configId && decodeURIComponent(configId), body, res);
    if (method === 'GET' && action === undefined) {
      // As a2a-js 0.3 reads it (DefaultRequestHandler.getTask): no history when the length is absent, all of it for 0 (`slice(-0)`).
      const historyLength = request.query.get('historyLength');
      const history = (task.history as Json[] | undefined) ?? [];
      return json(res, 200, { ...task, history: historyLength === null ? [] : history.slice(-Number(historyLength)) });
    }
    json(res, 405, { message: `${method} not allowed` });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', 'http://fake');
      const text = Buffer.concat(chunks).toString('utf8');
      const request: FakeRequest = {
        method: req.method ?? 'GET',
        path: target.pathname,
        query: target.searchParams,
        headers: req.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
      requests.push(request);
      route(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    restUrl: `${url}/agent`,
    requests,
    routed: (suffix) => requests.filter((request) => request.path.startsWith(PREFIX) && request.path.endsWith(suffix)),
    tasks,
    streamsClosedByClient: () => hungUp,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
