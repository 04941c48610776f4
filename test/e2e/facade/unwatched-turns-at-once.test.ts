/**
 * Bailian hangs up a message/stream and the next message of the conversation comes at once (its retry, the user
 * sending again): the hung-up call is still being let go (its stream ended, its context's lane and the note of its
 * rest written a moment later). The next message must show the turn's rest (or the agent's reply), not "a turn is
 * still in progress"; a message while another caller still watches the turn is refused as ever. With the
 * conversation's state in memory and in Redis (two replicas sharing it: the lanes, the notes).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { results, rpc, sentText, startFacadeGateway, streamedText, userMessage, type OpenStream } from '../../support/facade.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { Gates, startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { AFTER_CUT, BEFORE_CUT, CARD, QUESTION, REST_WORDS, RolloutAgent, stream } from './rollout-agent.js';

const BUSY_WORDS = '智能体仍在处理你的上一条消息';
const PROMPT = '创建 VPC，然后提问';
/** What opens the rest when the message that reads it is the left turn's own again. */
const SAME_MESSAGE_WORDS = '你刚发送的消息与连接中断的上一条消息相同';

/** What the user reads of a message/stream: its text, or the error it was refused with. */
async function read(opened: OpenStream): Promise<{ text: string }> {
  const frames = await opened.rest();
  const refused = frames.find((frame) => frame.json.error !== undefined);
  return { text: refused ? String(refused.json.error.message) : streamedText(results(frames)) };
}

const stores = {
  memory: () => ({}),
  redis: (prefix: string) => ({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix }),
};

// The two stores' suites run at once (each its own agent, gates and gateway); the cases of one, one by one: they share its gates.
describe.concurrent.each(['memory', 'redis'] as const)('the next message at once after Bailian hung up a message/stream (%s)', (store) => {
  const gates = new Gates();
  const executor = new RolloutAgent(gates);
  const prefix = `a2a-bridge-test:unwatched-at-once:${randomUUID()}:`;
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    if (store === 'redis') await requireRedis();
    agent = await startSdkTestAgent(CARD, executor);
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, ...stores[store](prefix) });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
    await agent?.close();
    if (store === 'redis') await deleteRedisKeys(prefix);
  });

  /** A stream read up to the agent's second words, the agent then held at its gate. */
  async function watching(contextId: string) {
    const opened = await stream(gateway.url, PROMPT, contextId);
    for (let frame = await opened.next(); frame && !JSON.stringify(frame.json).includes(BEFORE_CUT[1]!); frame = await opened.next());
    return opened;
  }

  /** Hung up, and the next message sent at once: what its user reads. */
  async function hangUpThenSend(contextId: string, next: { text: string; method: 'message/stream' | 'message/send' }): Promise<string> {
    const opened = await watching(contextId);
    opened.abort();
    const reading =
      next.method === 'message/stream'
        ? stream(gateway.url, next.text, contextId).then(read)
        : rpc(gateway.url, 'message/send', { message: userMessage({ text: next.text, contextId }) }).then(({ body }) => ({
            text: body.error ? String(body.error.message) : sentText(body.result),
          }));
    setTimeout(() => gates.open(), 300);
    return (await reading).text;
  }

  // The close of the hung-up call is read after the next message in some runs only: several rounds, each must hold.
  it.sequential.each([1, 2, 3])(
    'the next message at once (round %i): the rest of the turn, followed live, not "still in progress"',
    async (round) => {
      for (const method of ['message/stream', 'message/send'] as const) {
        for (const text of [PROMPT, '杭州']) {
          gates.reset(1);
          const executions = executor.executions;
          const read = await hangUpThenSend(`at-once-${store}-${round}-${method.slice(8)}-${text.length}-${Date.now()}`, { text, method });
          expect(read).not.toContain(BUSY_WORDS);
          // The same message again reads the rest as its own answer; another, as the rest of the one before.
          expect(read).toContain(text === PROMPT ? SAME_MESSAGE_WORDS : REST_WORDS);
          expect(read).toContain(AFTER_CUT);
          expect(read).toContain(QUESTION);
          // The request ran once: the message that read its rest was not passed on.
          expect(executor.executions).toBe(executions + 1);
        }
      }
    },
  );

  it.sequential('another message while the first caller still watches: refused as a turn in progress', async () => {
    const contextId = `still-watched-${store}-${Date.now()}`;
    gates.reset(1);
    const executions = executor.executions;
    const opened = await watching(contextId);
    // Refused while the turn still holds its gate, not after waiting for its release (that would never come: the gate
    // opens only once the refusal is read). How long it waits first, LET_GO_MS for a turn here rather than
    // LET_GO_ELSEWHERE_MS, continuation.test.ts tells, by the bound the wait is given rather than by the clock.
    const next = await read(await stream(gateway.url, '杭州', contextId));
    expect(next.text).toContain(BUSY_WORDS);
    gates.open();
    const first = await read(opened);
    expect(first.text).toContain(QUESTION);
    expect(executor.executions).toBe(executions + 1);
  });
});
