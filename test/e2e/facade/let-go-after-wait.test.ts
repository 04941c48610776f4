/**
 * Bailian hangs up a message/stream and the conversation's next message comes at once, on another replica or on
 * this one; the host is busy, and the turn's replica reads the hang-up only after the message's wait for it
 * (continuation.ts previousEnded) gave up: the message finds no note of the turn's rest (none yet), and the turn
 * lets its lane go a moment later, before the message's turn takes the lane. That timing is injected here: the
 * message's replica lets the turn go (the hang-up, the agent's answer, the lane's release) just before its own
 * turn asks for the lane. The message must be refused as a turn in progress, not reach the agent as a turn of its
 * own (its user never shown the rest of the turn they left); the next message then reads that rest.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import type { ContextLanes } from '../../../src/core/context-lanes.js';
import { results, rpc, sentText, startFacadeGateway, streamedText, userMessage, type OpenStream } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { Gates, startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { agentStateOf, AFTER_CUT, BEFORE_CUT, CARD, QUESTION, REST_WORDS, RolloutAgent, stream } from './rollout-agent.js';

/**
 * What runs just before a replica's turn asks for a conversation's lane, keyed by `<replica>:<contextId>`, run once;
 * and each conversation's lane key and the lanes of the replica that first asked for it.
 */
const beforeAcquire = vi.hoisted(() => ({
  made: 0,
  hooks: new Map<string, () => Promise<void>>(),
  lanes: new Map<string, { key: string; lanes: ContextLanes }>(),
}));

// Each gateway's lanes, numbered as they are made (replica 0, then 1), with beforeAcquire's hooks in front of tryAcquire.
vi.mock('../../../src/core/context-lanes-factory.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/core/context-lanes-factory.js')>();
  return {
    createContextLanesFor: (...args: Parameters<typeof original.createContextLanesFor>): ContextLanes => {
      const lanes = original.createContextLanesFor(...args);
      const replica = beforeAcquire.made++;
      return {
        ...lanes,
        async tryAcquire(key, taskId, recordedState) {
          const contextId = key.slice(key.indexOf('\u0000') + 1);
          if (!beforeAcquire.lanes.has(contextId)) beforeAcquire.lanes.set(contextId, { key, lanes });
          const hook = beforeAcquire.hooks.get(`${replica}:${contextId}`);
          beforeAcquire.hooks.delete(`${replica}:${contextId}`);
          await hook?.();
          return lanes.tryAcquire(key, taskId, recordedState);
        },
      };
    },
  };
});

const BUSY_WORDS = '智能体仍在处理你的上一条消息';
const PROMPT = '创建 VPC，然后提问';

/** What the user reads of a message sent with `method` to the gateway at `url`: its text, or the error it was refused with. */
async function send(url: string, method: 'message/stream' | 'message/send', text: string, contextId: string): Promise<string> {
  if (method === 'message/stream') return (await stream(url, text, contextId).then(readOrRefusal)).text;
  const { body } = await rpc(url, 'message/send', { message: userMessage({ text, contextId }) });
  return body.error ? String(body.error.message) : sentText(body.result);
}

/** What the user reads of a message/stream: its text, or the error it was refused with. */
async function readOrRefusal(opened: OpenStream): Promise<{ text: string }> {
  const frames = await opened.rest();
  const refused = frames.find((frame) => frame.json.error !== undefined);
  return { text: refused ? String(refused.json.error.message) : streamedText(results(frames)) };
}

describe('a message whose wait gave up on the turn its caller just left, let go a moment later', () => {
  const gates = new Gates();
  const executor = new RolloutAgent(gates);
  const replica = freshRedisStores('let-go-after-wait', afterAll);
  let agent: RunningTestAgent;
  const replicas: RunningGateway[] = [];
  beforeAll(async () => {
    await requireRedis();
    agent = await startSdkTestAgent(CARD, executor);
    // One after the other: their lanes are numbered as they are made.
    replicas.push(await startFacadeGateway({ upstream: { url: agent.url }, ...replica }));
    replicas.push(await startFacadeGateway({ upstream: { url: agent.url }, ...replica }));
  }, 30_000);
  afterAll(async () => {
    await Promise.all(replicas.map((gateway) => gateway.close()));
    await agent?.close();
  });

  /** A stream on replica 0 read up to the agent's second words, the agent then held at its gate. */
  async function watchedTurn(contextId: string): Promise<OpenStream> {
    const opened = await stream(replicas[0]!.url, PROMPT, contextId);
    for (let frame = await opened.next(); frame && !JSON.stringify(frame.json).includes(BEFORE_CUT[1]!); frame = await opened.next());
    return opened;
  }

  /** Its user hangs up, the agent goes on to ask its question, and the turn's replica lets the lane go. */
  async function leftAndLetGo(opened: OpenStream, contextId: string): Promise<void> {
    opened.abort();
    gates.open();
    while ((await agentStateOf(agent.url, gates.taskId)) !== 'TASK_STATE_INPUT_REQUIRED') await sleep(10);
    const { key, lanes } = beforeAcquire.lanes.get(contextId)!;
    await lanes.letGo(key, 10_000);
  }

  it.each([
    ['another replica', 'message/stream', 1],
    ['another replica', 'message/send', 1],
    ['this replica', 'message/stream', 0],
    ['this replica', 'message/send', 0],
  ] as const)(
    'on %s (%s): refused as a turn in progress, nothing sent to the agent; the next message reads the rest',
    async (_, method, at) => {
      const contextId = `let-go-after-wait-${at}-${method.slice(8)}-${randomUUID()}`;
      gates.reset(1);
      const executions = executor.executions;
      const opened = await watchedTurn(contextId);
      let letGoBeforeAcquire = false;
      beforeAcquire.hooks.set(`${at}:${contextId}`, async () => {
        letGoBeforeAcquire = true;
        await leftAndLetGo(opened, contextId);
      });

      const said = await send(replicas[at]!.url, method, '杭州', contextId);
      const seen = `${method} on replica ${at}`;
      expect(said, seen).toContain(BUSY_WORDS);
      expect(executor.executions, seen).toBe(executions + 1);
      // Refused before its turn asked for the lane: its user left the turn only now.
      expect(letGoBeforeAcquire, seen).toBe(false);
      beforeAcquire.hooks.delete(`${at}:${contextId}`);
      await leftAndLetGo(opened, contextId);

      const next = await send(replicas[at]!.url, method, '杭州', contextId);
      expect(next, seen).toContain(REST_WORDS);
      expect(next, seen).toContain(AFTER_CUT);
      expect(next, seen).toContain(QUESTION);
      expect(executor.executions, seen).toBe(executions + 1);
    },
    30_000,
  );
});
