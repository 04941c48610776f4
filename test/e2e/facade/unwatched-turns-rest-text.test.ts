/**
 * What a Bailian user reads of a turn they stopped watching (Bailian hung up its message/stream mid-turn) that
 * iac-code went on with: the next message shows the rest, and the rest must be exactly what follows what they
 * read, so that the two read together are the turn's answer as an unbroken stream shows it. Not the whole answer
 * again at the end (iac-code closes a turn with its `assistantFinal`, which restates the text after its last tool
 * call: a repeat of what the user read before the cut and what the rest showed after it), and not one chunk less
 * of a run of identical chunks (a Markdown table's `|`, a line of dots), whatever the moment the next message
 * comes: at once, or while the agent is in the middle of such a run. In message/stream and message/send, on the
 * memory store and on Redis. A message/send its caller hung up was read not at all (its one answer comes at the
 * turn's end): the next message shows that turn whole, as unbroken, its restatement too.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, reading, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import type { TurnScript } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startDemoAgent } from '../../../src/demo-agent/index.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';

const REST_WORDS = 'Here is the rest of the reply to your previous message';
/** What opens it instead when its user read none of the turn (a message/send hung up): the reply whole. */
const WHOLE_WORDS = 'Here is the reply to your previous message';
const LEFT_RUNNING_WORDS = 'The agent is taking longer than this reply can wait';
const DOTS = Array.from({ length: 12 }, () => '.');
/** A Markdown table streamed as iac-code's model does, its pipes as chunks of their own. */
const TABLE = [
  '\n\n',
  '|',
  ' name ',
  '|',
  ' state ',
  '|',
  '\n',
  '|',
  '---',
  '|',
  '---',
  '|',
  '\n',
  '|',
  ' vpc ',
  '|',
  ' ok ',
  '|',
  '\n',
  '|',
  ' vsw ',
  '|',
  ' ok ',
  '|',
];
const WORDS = ['Deployed ', 'w01 ', 'w02 ', 'w03 ', 'w04 ', 'w05 ', 'w06 ', 'w07 ', 'w08'];
/** The turn: text, the file its tool writes, then the answer iac-code restates whole as its `assistantFinal`. */
const SCRIPT: TurnScript = { before: ['Writing the template. '], artifact: { filename: 'main.tf' }, after: [...WORDS, ...DOTS, ...TABLE] };
const FRAME_MS = 40;
/**
 * The turn as its agent tells it to the hurried gateway, slower, and that gateway's bound: the bound ends its
 * message/send after the turn's first words and long before its end, by more than a loaded host stalls for (at
 * 40 ms a frame and a 700 ms bound, a stall let the bound strike before the agent's task came, and the call
 * failed as timed out).
 */
const HURRIED_FRAME_MS = 100;
const HURRIED_BOUND_MS = 1_500;
/**
 * How long a test waits for the agent to reach a point of its turn (its end, its third word): under load, with the
 * four suites' turns at once in one process, a turn of 40 ms frames has taken longer than 5 s.
 */
const TURN_WAIT_MS = 30_000;
/**
 * How often a test asks the agent for a turn's task while it waits on it: each ask is a request for the whole task.
 * Every 10 ms, those asks were about half this file's CPU; every 50 ms, still one ask or so per 40 ms frame, so
 * a run of 12 dots is caught in its middle.
 */
const ASK_EVERY_MS = 50;

/** What the user reads of a message/stream hung up once what it read holds `until`, and the task it was told. */
async function readUntil(gatewayUrl: string, text: string, contextId: string, until: string): Promise<{ read: string; taskId: string }> {
  const opened = await openStream(`${gatewayUrl}/stream`, 'message/stream', { message: userMessage({ text, contextId }) });
  const events: any[] = [];
  for (let frame = await opened.next(); frame; frame = await opened.next()) {
    events.push(frame.json.result);
    if (streamedText(events).includes(until)) break;
  }
  opened.abort();
  return { read: streamedText(events), taskId: events[0]?.id ?? events[0]?.taskId };
}

/**
 * What the user read, then the rest, read as the unbroken turn: the rest starts right after what they read, but for
 * the chunks the gateway may have sent as they hung up (unread, lost with the connection: under load the gateway
 * hears of the hang-up after the agent's next chunk or two came; seen with two on a loaded 2-core host).
 */
function expectReadOn(read: string, rest: string, unbroken: string): void {
  const from = unbroken.length - rest.length;
  // A chunk written as they hung up, which may have reached them, is shown again rather than lost (sse-direct.ts): one at most.
  const again = unbroken.slice(Math.min(from, read.length), read.length);
  expect(again).toMatch(/^(w\d\d )?$/);
  const unread = unbroken.slice(read.length, Math.max(read.length, from));
  expect(unread).toMatch(/^(w\d\d ){0,3}$/);
  expect(`${read.slice(0, read.length - again.length)}${unread}${rest}`).toBe(unbroken);
}

/** The rest as the user reads it: what follows the words that open it (`lead`). */
function restOf(said: string, lead: string = REST_WORDS): string {
  expect(said).toContain(lead);
  return said.slice(said.indexOf('\n\n', said.indexOf(lead)) + 2);
}

/** The agent's task as the agent keeps it (A2A 1.0 GetTask). */
async function agentTask(rpcUrl: string, taskId: string): Promise<{ history?: any[]; status: { state: string; message?: any } }> {
  return (await rpc(rpcUrl, 'GetTask', { id: taskId }, { headers: { 'A2A-Version': '1.0' } })).body.result;
}

/** The count of the agent's dots its task holds so far, in its history and current status. */
async function dotsSaid(rpcUrl: string, taskId: string): Promise<number> {
  const task = await agentTask(rpcUrl, taskId);
  const messages = [...(task.history ?? []), ...(task.status.message ? [task.status.message] : [])];
  return messages.filter((message) => message.role === 'ROLE_AGENT' && message.parts?.[0]?.text === '.').length;
}

/** The text of the agent's messages its task holds so far, in its history and current status. */
const agentText = (task: { history?: any[]; status: { message?: any } }): string =>
  [...(task.history ?? []), ...(task.status.message ? [task.status.message] : [])]
    .filter((message) => message.role === 'ROLE_AGENT')
    .map((message) => message.parts?.map((part: any) => part.text ?? '').join('') ?? '')
    .join('');

/** The agent's newest task in a conversation, if any (A2A 1.0 ListTasks). */
async function conversationTask(rpcUrl: string, contextId: string): Promise<any> {
  return (await rpc(rpcUrl, 'ListTasks', { contextId, historyLength: 100 }, { headers: { 'A2A-Version': '1.0' } })).body.result?.tasks?.[0];
}

/**
 * A message/send its caller (Bailian, at its own time-out) hangs up once the agent's task said `until` in this turn:
 * the call's one answer never came, so its user read nothing of the turn. Returns the turn's task.
 */
async function sendHungUp(gatewayUrl: string, rpcUrl: string, text: string, contextId: string, until: string): Promise<string> {
  // What a follow-up's task said before this turn.
  const before = agentText((await conversationTask(rpcUrl, contextId)) ?? { status: {} });
  const controller = new AbortController();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage({ text, contextId }) } });
  const sent = fetch(gatewayUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: controller.signal }).catch(
    () => undefined,
  );
  let taskId = '';
  await waitUntil(
    async () => {
      const task = await conversationTask(rpcUrl, contextId);
      taskId = task?.id ?? '';
      return task !== undefined && agentText(task).slice(before.length).includes(until);
    },
    TURN_WAIT_MS,
    ASK_EVERY_MS,
  );
  controller.abort();
  await sent;
  return taskId;
}

/** An agent whose turns end as iac-code's do: its answer, then its `assistantFinal` restating the text after its last tool call. */
interface Agent {
  url: string;
  rpcUrl: string;
  close(): Promise<void>;
}

const AGENTS = {
  /** The fake iac-code, from captures of the real server: text, a tool that writes a file, text, its restatement. */
  'iac-code': {
    prompt: 'make a vpc',
    async start(frameMs: number): Promise<Agent> {
      const fake: FakeIacCode = await startFakeIacCode({ frameDelayMs: frameMs, script: SCRIPT });
      return { url: fake.url, rpcUrl: fake.rpcUrl, close: () => fake.close() };
    },
  },
  /** The demo agent's `slow:` turn: its echo and a run of dots, its reply.txt artifact, then its restatement. */
  demo: {
    prompt: 'slow: w01 w02 w03 w04 w05 w06 w07 w08',
    async start(frameMs: number): Promise<Agent> {
      const demo = await startDemoAgent({ slowChunkDelayMs: frameMs });
      return { url: demo.url, rpcUrl: `${demo.url}/`, close: () => demo.close() };
    },
  },
};

describe.concurrent.each([
  ['iac-code', 'memory'],
  ['iac-code', 'redis'],
  ['demo', 'memory'],
  ['demo', 'redis'],
] as const)('the rest of a turn whose Bailian user stopped watching it (%s, %s store)', { timeout: 60_000 }, (agentName, store) => {
  const { prompt, start } = AGENTS[agentName];
  const prefix = `a2a-bridge-test:rest-text:${randomUUID()}:`;
  let agent: Agent;
  let gateway: RunningGateway;
  /** The same turn, told slower, behind `hurried`. */
  let slowAgent: Agent;
  /** The same replica's setup with a bound far shorter than the turn: its message/send leaves the turn running. */
  let hurried: RunningGateway;
  /**
   * The turn as a user who watched it to its end reads it: read while the cases run (each needs it only to compare
   * with at its end), not in the setup, which holds one of the few slots the cases of all four suites run in.
   */
  let unbrokenRead: Promise<string>;
  beforeAll(async () => {
    if (store === 'redis') await requireRedis();
    [agent, slowAgent] = await Promise.all([start(FRAME_MS), start(HURRIED_FRAME_MS)]);
    const stores = store === 'redis' ? { store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix } : {};
    [gateway, hurried] = await Promise.all([
      startFacadeGateway({ upstream: { url: agent.url }, ...stores }),
      startFacadeGateway({ upstream: { url: slowAgent.url, 'request-timeout-ms': HURRIED_BOUND_MS }, ...stores }),
    ]);
    unbrokenRead = reading(gateway.url, 'message/stream', prompt, `unbroken-${randomUUID()}`);
    // A failed read fails each case that awaits it, not the run as an unhandled rejection.
    unbrokenRead.catch(() => undefined);
  });
  afterAll(async () => {
    await Promise.all([gateway?.close(), hurried?.close()]);
    await Promise.all([agent?.close(), slowAgent?.close()]);
    if (store === 'redis') await deleteRedisKeys(prefix);
  });

  /** The turn hung up once its user read "w03": what they read, and its task. */
  const cut = (contextId: string): Promise<{ read: string; taskId: string }> => readUntil(gateway.url, prompt, contextId, 'w03');

  it('the unbroken turn reads the answer once, every dot in it', async () => {
    const unbroken = await unbrokenRead;
    expect(unbroken).toContain(`w08${DOTS.join('')}`);
    expect(unbroken.split('w01').length).toBe(2);
  });

  // The longest test (four turns) first, so that it is not the last one left running.
  it('a follow-up message/send hung up mid-answer: the next message shows that turn whole, not the one its user read before', async () => {
    const contextId = `follow-up-hung-up-${randomUUID()}`;
    // The follow-up as an unbroken conversation tells it, read while the hung-up conversation's first turn runs.
    const [followUp] = await Promise.all([
      (async () => {
        const whole = `follow-up-unbroken-${randomUUID()}`;
        await reading(gateway.url, 'message/stream', prompt, whole);
        return reading(gateway.url, 'message/stream', prompt, whole);
      })(),
      reading(gateway.url, 'message/stream', prompt, contextId),
    ]);
    await sendHungUp(gateway.url, agent.rpcUrl, prompt, contextId, 'w03');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rest = restOf(await reading(gateway.url, 'message/stream', 'status?', contextId), WHOLE_WORDS);
    expect(rest).toBe(followUp);
  });

  it.each(['message/stream', 'message/send'] as const)(
    'hung up mid-answer, the next message (%s) at once: the rest is what follows what was read, the restatement left out',
    async (method) => {
      const contextId = `rest-at-once-${randomUUID()}`;
      const { read } = await cut(contextId);
      // The gateway hears of the hang-up before the next message.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rest = restOf(await reading(gateway.url, method, 'status?', contextId));
      expectReadOn(read, rest, await unbrokenRead);
    },
  );

  it.each(['message/stream', 'message/send'] as const)(
    'hung up mid-answer, the next message (%s) while the agent is in the middle of a run of identical chunks: none of them lost',
    async (method) => {
      const contextId = `rest-mid-run-${randomUUID()}`;
      const { read, taskId } = await cut(contextId);
      await waitUntil(async () => (await dotsSaid(agent.rpcUrl, taskId)) >= 3, TURN_WAIT_MS, ASK_EVERY_MS);
      const rest = restOf(await reading(gateway.url, method, 'status?', contextId));
      expectReadOn(read, rest, await unbrokenRead);
    },
  );

  it.each(['message/stream', 'message/send'] as const)(
    'hung up mid-answer, the next message (%s) once the turn is over: the rest from the task, the restatement left out',
    async (method) => {
      const contextId = `rest-after-end-${randomUUID()}`;
      const { read, taskId } = await cut(contextId);
      await waitUntil(async () => (await agentTask(agent.rpcUrl, taskId)).status.state === 'TASK_STATE_INPUT_REQUIRED', TURN_WAIT_MS, ASK_EVERY_MS);
      const rest = restOf(await reading(gateway.url, method, 'status?', contextId));
      expectReadOn(read, rest, await unbrokenRead);
    },
  );

  it.each(['message/stream', 'message/send'] as const)(
    'a message/send hung up mid-answer (its user read nothing), the next message (%s) at once: the rest is the whole turn',
    async (method) => {
      const contextId = `send-hung-up-${randomUUID()}`;
      await sendHungUp(gateway.url, agent.rpcUrl, prompt, contextId, 'w03');
      // The gateway hears of the hang-up before the next message.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rest = restOf(await reading(gateway.url, method, 'status?', contextId), WHOLE_WORDS);
      expect(rest).toBe(await unbrokenRead);
    },
  );

  it.each(['message/stream', 'message/send'] as const)(
    'a message/send hung up mid-answer (its user read nothing), the next message (%s) once the turn is over: the whole turn from the task',
    async (method) => {
      const contextId = `send-hung-up-after-end-${randomUUID()}`;
      const taskId = await sendHungUp(gateway.url, agent.rpcUrl, prompt, contextId, 'w03');
      await waitUntil(async () => (await agentTask(agent.rpcUrl, taskId)).status.state === 'TASK_STATE_INPUT_REQUIRED', TURN_WAIT_MS, ASK_EVERY_MS);
      const rest = restOf(await reading(gateway.url, method, 'status?', contextId), WHOLE_WORDS);
      expect(rest).toBe(await unbrokenRead);
    },
  );

  it.each(['message/stream', 'message/send'] as const)(
    'a message/send past its bound, the next message (%s) once the turn is over: the rest is what follows what the user was sent',
    async (method) => {
      const contextId = `rest-timed-out-${randomUUID()}`;
      const { body } = await rpc(hurried.url, 'message/send', { message: userMessage({ text: prompt, contextId }) });
      expect(body.error).toBeUndefined();
      const sent = sentText(body.result);
      expect(sent).toContain(LEFT_RUNNING_WORDS);
      // What the user read of the answer: the reply up to the line that says the agent goes on.
      let read = sent.slice(0, sent.indexOf(LEFT_RUNNING_WORDS));
      const unbroken = await unbrokenRead;
      while (!unbroken.startsWith(read) && read.endsWith('\n')) read = read.slice(0, -1);
      // Read once the turn is over: a message to this gateway, followed live, would run out of its short bound too.
      await waitUntil(
        async () => (await agentTask(slowAgent.rpcUrl, body.result.id)).status.state === 'TASK_STATE_INPUT_REQUIRED',
        TURN_WAIT_MS,
        ASK_EVERY_MS,
      );
      const rest = restOf(await reading(hurried.url, method, 'status?', contextId));
      expect(`${read}${rest}`).toBe(unbroken);
    },
  );
});
