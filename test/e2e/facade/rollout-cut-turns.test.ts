/**
 * A rollout: replica A shuts down (its drain time over) while a Bailian user's turn runs on it, and a REAL
 * a2a-js 1.x agent goes on with the turn. The user must read at the cut that the task goes on and how to read
 * its end (not "retry", which would run the turn twice), and their next message in the conversation, on
 * replica B (sharing A's Redis: a new process on the same stores), must show what the turn said after the
 * cut (its answer, its question), live while it still runs, without sending that message to the agent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { results, rpc, sentText, startFacadeGateway, streamedText, userMessage, type OpenStream, type SseFrame } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { Gates, startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';
import { AFTER_CUT, BEFORE_CUT, CARD, CUT_WORDS, DONE, QUESTION, REST_WORDS, RolloutAgent, agentStateOf, read, stream } from './rollout-agent.js';

/** The frames of `opened` up to the one after which its user has read `text`. */
async function readUntil(opened: OpenStream, text: string): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  while (!streamedText(results(frames)).includes(text)) {
    const frame = await opened.next();
    if (!frame) throw new Error(`the stream ended before its user read "${text}": ${streamedText(results(frames))}`);
    frames.push(frame);
  }
  return frames;
}

const prefix = `a2a-bridge-test:facade-rollout:${randomUUID()}:`;
const replicaConfig = (agentUrl: string) => ({
  upstream: { url: agentUrl },
  store: 'redis',
  'redis-url': REDIS_URL,
  'redis-prefix': prefix,
  // The drain is over before the turn is: the rollout of the finding, in a test's time. The default lane lease
  // (30 s): the cut turn's stream may end, and release its lane, only after A's lanes closed; the lane must come
  // free to B once the turn is recorded over all the same, not "智能体仍在处理你的上一条消息" for a dozen seconds.
  'drain-timeout-ms': 200,
});

describe('a Bailian turn cut by a rollout, read on the other replica', () => {
  const gates = new Gates();
  const executor = new RolloutAgent(gates);
  let agent: RunningTestAgent;
  let replicaB: RunningGateway;
  beforeAll(async () => {
    await requireRedis();
    agent = await startSdkTestAgent(CARD, executor);
    replicaB = await startFacadeGateway(replicaConfig(agent.url));
  });
  afterAll(async () => {
    gates.reset(0);
    await replicaB?.close();
    await agent?.close();
    await deleteRedisKeys(prefix);
  });

  /** The agent's own word on the turn's task. */
  const agentState = (): Promise<string> => agentStateOf(agent.url, gates.taskId);

  /** A turn on a replica A of its own, cut by A's shutdown while the agent waits at its gate; what the user read of it. */
  async function cutTurn(way: 'stream' | 'send', text: string, contextId: string): Promise<{ text: string; state: string }> {
    gates.reset(1);
    const replicaA = await startFacadeGateway(replicaConfig(agent.url));
    if (way === 'send') {
      const answer = rpc(replicaA.url, 'message/send', { message: userMessage({ text, contextId }) });
      await waitUntil(async () => gates.reached === 1);
      // A blocking call shows its user nothing before its answer, so no event tells that A has the words the agent said
      // before its gate: they reach A as the agent reaches the gate (a stream's user reads them within a millisecond
      // of it on a loaded host), and the rollout begins a while after.
      await new Promise((resolve) => setTimeout(resolve, 150));
      await replicaA.close();
      const { body } = await answer;
      return { text: sentText(body.result), state: body.result?.status?.state };
    }
    // The rollout begins once the user has read the turn's words before the gate.
    const opened = await stream(replicaA.url, text, contextId);
    const shown = await readUntil(opened, BEFORE_CUT.join(''));
    const rest = opened.rest();
    await replicaA.close();
    const events = results([...shown, ...(await rest)]);
    return { text: streamedText(events), state: events.at(-1)?.status?.state };
  }

  for (const way of ['stream', 'send'] as const) {
    it(`${way}: the cut says the task goes on; the next message on B shows its answer, and is not sent`, async () => {
      const contextId = `ctx-${way}-done-${randomUUID()}`;
      const cut = await cutTurn(way, '规划一个VPC', contextId);
      expect(cut.text).toContain(BEFORE_CUT.join(''));
      expect(cut.text).toContain(CUT_WORDS);
      expect(cut.text).not.toContain('请稍后重试');
      gates.open();
      await waitUntil(async () => (await agentState()) === 'TASK_STATE_COMPLETED');
      const executions = executor.executions;
      const next = await read(await stream(replicaB.url, '继续', contextId));
      expect(next.text).toContain(REST_WORDS);
      expect(next.text).toContain(`${AFTER_CUT}`);
      expect(next.text).toContain(DONE);
      expect(next.text).not.toContain(BEFORE_CUT[0]);
      expect(next.state).toBe('completed');
      expect(executor.executions).toBe(executions);
      // Read once: the message after it is a turn of its own.
      const after = await read(await stream(replicaB.url, '再规划一个', contextId));
      expect(after.text).not.toContain(REST_WORDS);
      expect(executor.executions).toBe(executions + 1);
    });
  }

  it('while the cut turn still runs: the next message follows its rest live', async () => {
    const contextId = `ctx-running-${randomUUID()}`;
    await cutTurn('stream', '规划一个VPC', contextId);
    expect(await agentState()).toBe('TASK_STATE_WORKING');
    const executions = executor.executions;
    const next = await stream(replicaB.url, '继续', contextId);
    const opened = [await next.next(), await next.next()];
    expect(streamedText(results(opened.filter((frame) => frame !== undefined)))).toContain(REST_WORDS);
    gates.open();
    const rest = await read(next);
    expect(rest.text).toContain(AFTER_CUT);
    expect(rest.text).toContain(DONE);
    expect(rest.state).toBe('completed');
    expect(executor.executions).toBe(executions);
  });

  it('a cut turn that ended asking: the next message shows the question, and is not taken as its answer', async () => {
    const contextId = `ctx-asked-${randomUUID()}`;
    await cutTurn('stream', '规划一个VPC，然后提问', contextId);
    gates.open();
    await waitUntil(async () => (await agentState()) === 'TASK_STATE_INPUT_REQUIRED');
    const executions = executor.executions;
    const next = await read(await stream(replicaB.url, '继续', contextId));
    expect(next.text).toContain(AFTER_CUT);
    expect(next.text).toContain(QUESTION);
    // The agent is not iac-code: its question ends input-required, so Bailian routes the answer back to it.
    expect(next.state).toBe('input-required');
    expect(executor.executions).toBe(executions);
  });
});

/** The frames of an iac-code follow-up's stream up to its words before the tool call: SUBMITTED, WORKING, "Hello ", "world.". */
const FRAMES_BEFORE_TOOL = 4;

describe('an iac-code turn cut by a rollout, read on the other replica', () => {
  let fake: FakeIacCode;
  let replicaB: RunningGateway;
  beforeAll(async () => {
    await requireRedis();
    fake = await startFakeIacCode();
    replicaB = await startFacadeGateway(replicaConfig(fake.url));
  });
  afterAll(async () => {
    await replicaB?.close();
    await fake?.close();
  });

  it("the next message shows the rest of the conversation's cut turn, not the turns before it", async () => {
    const contextId = `ctx-iac-${randomUUID()}`;
    const unbroken = await read(await stream(replicaB.url, '规划一个VPC', contextId));
    expect(unbroken.text).toBe('Hello world.\nmain.tf (text/plain, 14 字节)\nDone.');
    // The conversation's second turn (the same iac-code task), cut by replica A's shutdown after its first words.
    // Its stream to A goes quiet after them while iac-code goes on with the turn, so the drain's end falls there, not
    // where frames paced against the drain's 200 ms happened to be: on a loaded host that was before "world.".
    fake.injectFault({ name: 'hang-mid-stream', after: FRAMES_BEFORE_TOOL }, { method: 'SendStreamingMessage' });
    const replicaA = await startFacadeGateway(replicaConfig(fake.url));
    const cutStream = await stream(replicaA.url, '再规划一个VPC', contextId);
    const frames = await readUntil(cutStream, 'Hello world.');
    const closing = replicaA.close();
    const cut = streamedText(results([...frames, ...(await cutStream.rest())]));
    await closing;
    expect(cut).toBe(`Hello world.\n${CUT_WORDS}。请在本对话中发送任意消息（例如“继续”）查看结果，无需重新提交请求。`);
    const taskId = results(frames)[0].id;
    await waitUntil(async () => (fake.tasks.get(taskId)?.status as { state?: string } | undefined)?.state === 'TASK_STATE_INPUT_REQUIRED');
    const sent = fake.rpcRequests('SendStreamingMessage').length;
    const next = await read(await stream(replicaB.url, '继续', contextId));
    expect(next.text.startsWith(REST_WORDS)).toBe(true);
    expect(next.text.endsWith('\n\nmain.tf (text/plain, 14 字节)\nDone.')).toBe(true);
    expect(fake.rpcRequests('SendStreamingMessage').length).toBe(sent);
    // The message after it continues the conversation's task at iac-code, as any follow-up does.
    const after = await read(await stream(replicaB.url, '再来一个', contextId));
    expect(after.text).toBe(unbroken.text);
    expect(fake.rpcRequests('SendStreamingMessage').at(-1)?.body).toMatchObject({ params: { message: { taskId } } });
  });
});
