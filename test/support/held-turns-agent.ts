/**
 * A hand-written A2A 1.0 JSON-RPC agent whose turns last until the test ends them, so a test can hold
 * a caller's turns in flight and see what the gateway does meanwhile:
 *   SendMessage            the answer waits until the turn is ended
 *   SendStreamingMessage   task SUBMITTED and a WORKING status at once (and the words of `saying`, when given),
 *                          then nothing until the turn is ended
 *   SubscribeToTask        the task at once, then the turn's end with the turn's own stream
 *   GetTask, CancelTask    answered at once (a cancel ends the turn CANCELED)
 * A turn ends with `complete()` (COMPLETED with a reply) or `fail()`: the blocking answer is a -32603,
 * a stream's connection is cut mid-turn.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonRpcAgentCard, readJsonBody } from './json-rpc-agent.js';

export interface HeldTurn {
  method: 'SendMessage' | 'SendStreamingMessage';
  taskId: string;
  contextId: string;
  /** The text of the caller's message. */
  text: string;
  /** The media types of its parts that are not text (files: the images a facade turn brought). */
  mediaTypes: string[];
  complete(): void;
  fail(): void;
  /** Settles when the caller's exchange is over: the agent answered it, or the gateway hung up first. */
  closed: Promise<'finished' | 'client-closed'>;
}

export interface HeldTurnsAgent {
  url: string;
  /** The turns still held, oldest first. */
  held(): HeldTurn[];
  /** The held turns, once there are at least `count` (within 5 s). */
  waitForHeld(count: number): Promise<HeldTurn[]>;
  /** JSON-RPC calls received for `method`. */
  calls(method: string): number;
  close(): Promise<void>;
}

type State = 'TASK_STATE_SUBMITTED' | 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED' | 'TASK_STATE_CANCELED' | 'TASK_STATE_FAILED';

interface TaskRecord {
  id: string;
  contextId: string;
  state: State;
  /** Streams that get the turn's end, each with its own JSON-RPC id: the turn's own and its subscribers'. */
  streams: Map<ServerResponse, unknown>;
  end?: (state: State) => void;
}

const card = (url: string, inputModes?: string[]): unknown =>
  jsonRpcAgentCard(url, {
    name: 'held-turns',
    description: 'An agent whose turns last until the test ends them',
    skill: { id: 'hold', name: 'Hold', description: 'holds each turn' },
    ...(inputModes ? { inputModes } : {}),
  });

/**
 * `inputModes`: what its card says it takes (text/plain unless given); `saying`: the text a streamed turn says
 * (an artifact chunk) before it is held, so its caller has read part of a reply when the turn is cut.
 */
export async function startHeldTurnsAgent(options: { inputModes?: string[]; saying?: string } = {}): Promise<HeldTurnsAgent> {
  const tasks = new Map<string, TaskRecord>();
  const held: HeldTurn[] = [];
  const calls = new Map<string, number>();
  const open = new Set<ServerResponse>();
  let sequence = 0;

  const taskJson = (task: TaskRecord, reply?: string) => ({
    id: task.id,
    contextId: task.contextId,
    status: {
      state: task.state,
      ...(reply
        ? { message: { messageId: `${task.id}-reply`, role: 'ROLE_AGENT', taskId: task.id, contextId: task.contextId, parts: [{ text: reply }] } }
        : {}),
    },
  });
  const frame = (id: unknown, result: unknown): string => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
  const statusFrame = (id: unknown, task: TaskRecord, reply?: string): string =>
    frame(id, { statusUpdate: { taskId: task.id, contextId: task.contextId, status: taskJson(task, reply).status } });
  const answer = (res: ServerResponse, id: unknown, body: Record<string, unknown>): void => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
  };
  const openSse = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  };
  /** `res` gets the end of `task`'s turn, unless its caller hung up first. */
  const follow = (task: TaskRecord, res: ServerResponse, id: unknown): void => {
    task.streams.set(res, id);
    res.once('close', () => task.streams.delete(res));
  };

  function hold(method: HeldTurn['method'], rpc: any, res: ServerResponse): void {
    const n = ++sequence;
    const parts: Array<{ text?: string; mediaType?: string }> = rpc.params?.message?.parts ?? [];
    const text = parts.map((part) => part.text ?? '').join('');
    const mediaTypes = parts.filter((part) => part.text === undefined).map((part) => part.mediaType ?? '(none)');
    const task: TaskRecord = {
      id: `task-${n}`,
      contextId: rpc.params?.message?.contextId || `ctx-${n}`,
      state: 'TASK_STATE_SUBMITTED',
      streams: new Map(),
    };
    tasks.set(task.id, task);
    const closed = new Promise<'finished' | 'client-closed'>((resolve) =>
      res.once('close', () => resolve(res.writableFinished ? 'finished' : 'client-closed')),
    );
    const turn: HeldTurn = {
      method,
      taskId: task.id,
      contextId: task.contextId,
      text,
      mediaTypes,
      complete: () => end('TASK_STATE_COMPLETED'),
      fail: () => end('TASK_STATE_FAILED'),
      closed,
    };
    held.push(turn);
    const drop = (): void => {
      const index = held.indexOf(turn);
      if (index >= 0) held.splice(index, 1);
    };
    void closed.then(drop);
    function end(state: State): void {
      if (task.end === undefined) return;
      drop();
      task.end = undefined;
      task.state = state;
      const failed = state === 'TASK_STATE_FAILED';
      if (method === 'SendMessage') {
        if (failed) answer(res, rpc.id, { error: { code: -32603, message: 'The agent failed the turn' } });
        else answer(res, rpc.id, { result: { task: taskJson(task, `done: ${text}`) } });
      }
      for (const [stream, id] of task.streams) {
        if (failed) stream.destroy();
        else stream.end(statusFrame(id, task, `done: ${text}`));
      }
    }
    task.end = end;
    if (method === 'SendStreamingMessage') {
      openSse(res);
      follow(task, res, rpc.id);
      res.write(frame(rpc.id, { task: taskJson(task) }));
      task.state = 'TASK_STATE_WORKING';
      res.write(statusFrame(rpc.id, task));
      if (options.saying !== undefined) {
        const artifact = { artifactId: `${task.id}-reply`, parts: [{ text: options.saying }] };
        res.write(frame(rpc.id, { artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: false } }));
      }
    } else task.state = 'TASK_STATE_WORKING';
  }

  function serve(rpc: any, res: ServerResponse): void {
    calls.set(rpc.method, (calls.get(rpc.method) ?? 0) + 1);
    if (rpc.method === 'SendMessage' || rpc.method === 'SendStreamingMessage') return hold(rpc.method, rpc, res);
    const task = tasks.get(rpc.params?.id);
    if (!task) return answer(res, rpc.id, { error: { code: -32001, message: 'Task not found' } });
    switch (rpc.method) {
      case 'GetTask':
        return answer(res, rpc.id, { result: taskJson(task) });
      case 'CancelTask':
        task.end?.('TASK_STATE_CANCELED');
        task.state = 'TASK_STATE_CANCELED';
        return answer(res, rpc.id, { result: taskJson(task) });
      case 'SubscribeToTask':
        openSse(res);
        res.write(frame(rpc.id, { task: taskJson(task) }));
        if (task.end) follow(task, res, rpc.id);
        else res.end();
        return;
      default:
        return answer(res, rpc.id, { error: { code: -32601, message: 'Method not found' } });
    }
  }

  const server = createServer((req, res) => {
    open.add(res);
    res.once('close', () => open.delete(res));
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card(baseUrl, options.inputModes)));
      return;
    }
    readJsonBody(req).then(
      (rpc) => serve(rpc, res),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: baseUrl,
    held: () => [...held],
    async waitForHeld(count) {
      const deadline = Date.now() + 5_000;
      while (held.length < count) {
        if (Date.now() > deadline) throw new Error(`${held.length} turns held, expected ${count}`);
        await sleep(5);
      }
      return [...held];
    },
    calls: (method) => calls.get(method) ?? 0,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
