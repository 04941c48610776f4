/**
 * A facade turn has one TurnTracker (turn-tracker.ts), which both the recovery of a broken stream and the
 * note of a turn the gateway's shutdown cut (cut-turns.ts) read: every event the agent's turn relays is noted
 * in it once, not once for each (a large file held twice, twice the work per event). What the Bailian user
 * reads stays as it was: the whole turn once after a recovered break, and after a cut, the rest from where
 * they were cut off.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { defaultConfig } from '../../../../src/config/schema.js';
import { createTaskRegistry } from '../../../../src/core/task-registry/index.js';
import type { TaskRegistry } from '../../../../src/core/task-registry/types.js';
import { createGatewayApp } from '../../../../src/gateway-app.js';
import { createLogger } from '../../../../src/log.js';
import type { AgentPort } from '../../../../src/core/agent-port.js';
import { A2AError, type Message, type StreamResponse, type Task, type TaskState } from '../../../../src/model/index.js';
import { createMemoryConversationLanguages, type ConversationLanguages } from '../../../../src/surfaces/v025/notes/conversation-languages.js';
import { principalOf } from '../../../../src/surfaces/shared/principal.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { sentText, streamedText, userMessage } from '../../../support/facade.js';
import { fixedCards, StubPort } from '../../support.js';

const TASK = 'task-1';
const said = (text: string): Message => ({ messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] });
const SAID = ['第一段：开始规划。', '第二段：正在创建 VPC。', '第三段：交换机已创建。'].map(said);
const DONE = said('完成：VPC 已就绪。');
const REST_WORDS = '以下是你上一条消息在连接中断后的后续回复';

const opening = (contextId: string, taskId = TASK): StreamResponse => ({
  task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } },
});
const update = (contextId: string, state: TaskState, message: Message, taskId = TASK): StreamResponse => ({
  statusUpdate: { taskId, contextId, status: { state, message } },
});
const working = (contextId: string, message: Message, taskId = TASK): StreamResponse => update(contextId, 'TASK_STATE_WORKING', message, taskId);
const completed = (contextId: string, taskId = TASK): StreamResponse => update(contextId, 'TASK_STATE_COMPLETED', DONE, taskId);
/** The task as the agent keeps it once the turn is over: its messages in the history, the last in the status. */
const finished = (contextId: string): Task => ({ id: TASK, contextId, status: { state: 'TASK_STATE_COMPLETED', message: DONE }, history: SAID });

const registries: TaskRegistry[] = [];
let note: MockInstance<TurnTracker['note']>;
beforeEach(() => {
  note = vi.spyOn(TurnTracker.prototype, 'note');
});
afterEach(async () => {
  note.mockRestore();
  for (const registry of registries.splice(0)) await registry.close();
});

/** The events noted since the last look, in order. */
function notedSinceLastLook(): StreamResponse[] {
  const events = note.mock.calls.map(([event]) => event);
  note.mockClear();
  return events;
}

/**
 * A facade replica over `overrides`, with the gateway's shutdown signal `shutdown`; its conversations in
 * `languages`, which the replicas of a rollout share (Redis).
 */
function facade(overrides: Partial<AgentPort>, replica: { shutdown?: AbortSignal; languages?: ConversationLanguages } = {}) {
  const config = defaultConfig({ 'keepalive-ms': 0 });
  const registry = createTaskRegistry(config);
  registries.push(registry);
  const app = createGatewayApp({
    config,
    port: new StubPort(overrides),
    cards: fixedCards(),
    registry,
    logger: createLogger('silent'),
    ...replica,
  });
  const call = (method: string, text: string, contextId: string) =>
    app.request(`http://gw.test/${method === 'message/stream' ? 'stream' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'c-1', method, params: { message: userMessage({ text, contextId }) } }),
    });
  return Object.assign(call, { registry });
}

/** The 0.2.5 results of a message/stream response, frame by frame as they come. */
async function* streamed(response: Response): AsyncGenerator<any> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as ReadableStream<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (block.startsWith('data: ')) yield JSON.parse(block.slice(6)).result;
    }
  }
}

async function readAll(response: Response): Promise<any[]> {
  const events: any[] = [];
  for await (const event of streamed(response)) events.push(event);
  return events;
}

describe('a facade turn notes each of its events once, in the one tracker its recovery and its cut note read', () => {
  /** An agent whose turn's stream breaks after two messages; a resubscription carries the rest. */
  const breaking = (contextId: string): Partial<AgentPort> => ({
    async *sendStreamingMessage() {
      yield opening(contextId);
      yield working(contextId, SAID[0]!);
      yield working(contextId, SAID[1]!);
      throw new Error('socket hang up');
    },
    async *subscribeToTask() {
      // The task as the agent has it: its current message in its status, those before in its history.
      yield { task: { id: TASK, contextId, status: { state: 'TASK_STATE_WORKING', message: SAID[1]! }, history: [SAID[0]!] } };
      yield working(contextId, SAID[2]!);
      yield completed(contextId);
    },
  });
  const relayed = (contextId: string): StreamResponse[] => [
    opening(contextId),
    ...SAID.map((message) => working(contextId, message)),
    completed(contextId),
  ];
  // The final answer is a message of its own, after the working ones.
  const wholeTurn = '第一段：开始规划。第二段：正在创建 VPC。第三段：交换机已创建。\n完成：VPC 已就绪。';

  it('message/stream whose stream broke: the user reads the whole turn once; each event was noted once', async () => {
    const contextId = 'ctx-stream';
    const events = await readAll(await facade(breaking(contextId))('message/stream', '规划一个VPC', contextId));
    expect(streamedText(events)).toBe(wholeTurn);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(notedSinceLastLook()).toEqual(relayed(contextId));
  });

  it('message/send, the same turn: the same words, each event noted once', async () => {
    const contextId = 'ctx-send';
    const answer: any = await (await facade(breaking(contextId))('message/send', '规划一个VPC', contextId)).json();
    expect(sentText(answer.result)).toBe(wholeTurn);
    expect(notedSinceLastLook()).toEqual(relayed(contextId));
  });

  it('a follow-up whose task iac-code forgot goes again in a new task: only that attempt is read after its break', async () => {
    const contextId = 'ctx-expired';
    const NEW = 'task-2';
    const call = facade({
      async *sendStreamingMessage(request) {
        if (request.message.taskId === TASK) {
          // iac-code evicted the idle conversation: the answer to its question fails at once (gone-task.ts).
          yield opening(contextId);
          yield update(contextId, 'TASK_STATE_FAILED', said('A2A task expired'));
        } else {
          yield opening(contextId, NEW);
          yield working(contextId, SAID[0]!, NEW);
          throw new Error('socket hang up');
        }
      },
      async *subscribeToTask() {
        yield { task: { id: NEW, contextId, status: { state: 'TASK_STATE_WORKING', message: SAID[1]! }, history: [SAID[0]!] } };
        yield completed(contextId, NEW);
      },
    });
    // The conversation's task waits for its user's answer, as the gateway recorded it (the core records what it relays).
    const asked: Task = { id: TASK, contextId, status: { state: 'TASK_STATE_INPUT_REQUIRED', message: said('要写入 main.tf 吗？') } };
    await call.registry.put(asked, { owner: principalOf('a2a-0.2.5', 'anonymous'), upstream: 'default' });
    const events = await readAll(await call('message/stream', '是', contextId));
    expect(streamedText(events)).toBe('第一段：开始规划。第二段：正在创建 VPC。\n完成：VPC 已就绪。');
    expect(notedSinceLastLook()).toEqual([
      // The refused attempt's, which its user never saw, then the new task's.
      opening(contextId),
      update(contextId, 'TASK_STATE_FAILED', said('A2A task expired')),
      opening(contextId, NEW),
      working(contextId, SAID[0]!, NEW),
      working(contextId, SAID[1]!, NEW),
      completed(contextId, NEW),
    ]);
  });

  it('a turn the shutdown cut: noted once; the next message shows its rest from where its user was cut off', async () => {
    const contextId = 'ctx-cut';
    const shutdown = new AbortController();
    const languages = createMemoryConversationLanguages({ max: 10, idleTtlMs: 0 });
    let turnIsOver = false;
    const agent: Partial<AgentPort> = {
      async *sendStreamingMessage(_request, ctx) {
        yield opening(contextId);
        yield working(contextId, SAID[0]!);
        yield working(contextId, SAID[1]!);
        // The agent goes on past the gateway's shutdown; only the call's end ends this stream.
        await new Promise((resolve) => ctx.signal?.addEventListener('abort', resolve, { once: true }));
      },
      getTask: async () => (turnIsOver ? finished(contextId) : { id: TASK, contextId, status: { state: 'TASK_STATE_WORKING' } }),
    };
    const cut: any[] = [];
    const replicaA = facade(agent, { shutdown: shutdown.signal, languages });
    for await (const event of streamed(await replicaA('message/stream', '规划一个VPC', contextId))) {
      cut.push(event);
      if (streamedText(cut).includes('第二段')) shutdown.abort(A2AError.shuttingDown());
    }
    expect(streamedText(cut)).toContain('第一段：开始规划。第二段：正在创建 VPC。');
    expect(streamedText(cut)).toContain('智能体仍在继续处理你的请求');
    expect(notedSinceLastLook()).toEqual([opening(contextId), working(contextId, SAID[0]!), working(contextId, SAID[1]!)]);

    turnIsOver = true;
    const replicaB = facade(agent, { languages });
    const next = streamedText(await readAll(await replicaB('message/stream', '继续', contextId)));
    // What the user was shown at the cut is not shown again: the rest starts after it. "继续" asked for nothing but it.
    expect(next).toBe(`${REST_WORDS}。\n\n第三段：交换机已创建。\n完成：VPC 已就绪。`);
    expect(notedSinceLastLook()).toEqual([working(contextId, SAID[2]!), completed(contextId)]);
  });
});
