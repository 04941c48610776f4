/**
 * Bailian hangs up a message/stream or a message/send on replica A and the conversation's next message comes at
 * once to replica B (two gateways sharing one Redis, behind a load balancer; B in a process of its own, with its
 * own event loop and Redis connections, as in production): A is still letting the turn go (its call's close read,
 * its context's lane released and the note of its rest written a moment later), and B has no turn of its own
 * running on the conversation. The next message must read the turn's rest on B as it would on A, not "a turn is
 * still in progress"; a message on B while the turn's caller still watches it on A is refused as ever.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { LET_GO_ELSEWHERE_MS } from '../../../src/surfaces/v025/turn/continuation.js';
import { results, rpc, sentText, startFacadeGateway, streamedText, userMessage, type OpenStream } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { Gates, startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startFacadeReplica, type FacadeReplica } from './fixtures/facade-replica.js';
import { AFTER_CUT, BEFORE_CUT, CARD, QUESTION, REST_WORDS, RolloutAgent, stream } from './rollout-agent.js';

const BUSY_WORDS = '智能体仍在处理你的上一条消息';
const PROMPT = '创建 VPC，然后提问';
/** What opens the rest when the message that reads it is the left turn's own again. */
const SAME_MESSAGE_WORDS = '你刚发送的消息与连接中断的上一条消息相同';
/** What opens the turn whole when another message follows a message/send hung up (its user read none of it). */
const WHOLE_WORDS = '以下是你上一条消息的完整回复';

/** What the user reads of a message/stream: its text, or the error it was refused with. */
async function read(opened: OpenStream): Promise<{ text: string }> {
  const frames = await opened.rest();
  const refused = frames.find((frame) => frame.json.error !== undefined);
  return { text: refused ? String(refused.json.error.message) : streamedText(results(frames)) };
}

/** What the user reads of a message sent with `method` to the gateway at `url`. */
function send(url: string, method: 'message/stream' | 'message/send', text: string, contextId: string): Promise<string> {
  if (method === 'message/stream')
    return stream(url, text, contextId)
      .then(read)
      .then(({ text: said }) => said);
  return rpc(url, 'message/send', { message: userMessage({ text, contextId }) }).then(({ body }) =>
    body.error ? String(body.error.message) : sentText(body.result),
  );
}

/** The agent of RolloutAgent, with gates of each conversation's own: the conversations of the rounds run side by side. */
class ConversationsApart implements AgentExecutor {
  private readonly conversations = new Map<string, { gates: Gates; executor: RolloutAgent }>();
  of(contextId: string): { gates: Gates; executor: RolloutAgent } {
    const known = this.conversations.get(contextId);
    if (known) return known;
    const gates = new Gates();
    const conversation = { gates, executor: new RolloutAgent(gates) };
    this.conversations.set(contextId, conversation);
    return conversation;
  }
  execute = (request: RequestContext, bus: ExecutionEventBus): Promise<void> => this.of(request.contextId).executor.execute(request, bus);
  cancelTask = async (): Promise<void> => undefined;
}

describe('the next message at once on another replica after Bailian hung up', () => {
  const agents = new ConversationsApart();
  const replica = freshRedisStores('unwatched-other-replica', afterAll);
  let agent: RunningTestAgent;
  let replicaA: RunningGateway;
  let replicaB: FacadeReplica;
  beforeAll(async () => {
    await requireRedis();
    agent = await startSdkTestAgent(CARD, agents);
    [replicaA, replicaB] = await Promise.all([
      startFacadeGateway({ upstream: { url: agent.url }, ...replica }),
      startFacadeReplica({ upstream: { url: agent.url }, ...replica }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([replicaA?.close(), replicaB?.close()]);
    await agent?.close();
  });

  /** A stream on replica A read up to the agent's second words, the agent then held at its gate. */
  async function watchingOnA(contextId: string) {
    const opened = await stream(replicaA.url, PROMPT, contextId);
    for (let frame = await opened.next(); frame && !JSON.stringify(frame.json).includes(BEFORE_CUT[1]!); frame = await opened.next());
    return opened;
  }

  /** A message/send on replica A, the agent held at its gate, hung up: resolves once its caller is gone. */
  async function hungUpSendOnA(contextId: string): Promise<void> {
    const { gates } = agents.of(contextId);
    const caller = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage({ text: PROMPT, contextId }) } });
    const headers = { 'content-type': 'application/json' };
    const sent = fetch(replicaA.url, { method: 'POST', headers, body, signal: caller.signal }).catch(() => undefined);
    while (gates.reached < 1) await sleep(5);
    // Its first events recorded, as a Bailian turn that ran until Bailian's own time-out (a new task's first event
    // waits for its write to Redis, after the scope read: on a loaded host that took longer than 100 ms).
    await sleep(300);
    caller.abort();
    await sent;
  }

  /** A turn on replica A hung up by its caller, with `hangUp`. */
  async function hungUpOnA(hangUp: 'message/stream' | 'message/send', contextId: string): Promise<void> {
    if (hangUp === 'message/send') return hungUpSendOnA(contextId);
    const watching = await watchingOnA(contextId);
    // Read, then gone a moment later, as Bailian's own time-out hangs up: a close in the very turn the frame came may
    // be seen before the gateway counts that frame read (docs/facade-reply.md), and the next message then shows the
    // reply whole, which this test does not ask about.
    await sleep(100);
    watching.abort();
  }

  // Whether B reads the message before A has let the turn go varies from run to run: several rounds, each must hold.
  // Side by side, as on a busy replica: A reads each close and lets each turn go later than on an idle one. Each round
  // then shares the host with the others, and may take as long as all three one after another.
  it.concurrent.each([1, 2, 3])(
    'hung up on A, the next message at once on B (round %i): the rest of the turn, not "still in progress"',
    async (round) => {
      for (const [hangUp, method] of [
        ['message/stream', 'message/stream'],
        ['message/stream', 'message/send'],
        ['message/send', 'message/send'],
        ['message/send', 'message/stream'],
        ['message/send', 'message/send'],
      ] as const) {
        for (const text of [PROMPT, '杭州']) {
          const contextId = `other-replica-${round}-${hangUp.slice(8)}-${method.slice(8)}-${text.length}-${randomUUID()}`;
          const { gates, executor } = agents.of(contextId);
          gates.reset(1);
          const executions = executor.executions;
          await hungUpOnA(hangUp, contextId);
          const reading = send(replicaB.url, method, text, contextId);
          const opening = setTimeout(() => gates.open(), 300);
          const said = await reading.finally(() => clearTimeout(opening));
          const seen = `hung up: ${hangUp}, next: ${method} ${text}`;
          expect(said, seen).not.toContain(BUSY_WORDS);
          // The same message again reads the rest as its own answer; another, as the rest of the one before (its reply
          // whole after a message/send, of which its user read nothing).
          expect(said, seen).toContain(text === PROMPT ? SAME_MESSAGE_WORDS : hangUp === 'message/send' ? WHOLE_WORDS : REST_WORDS);
          expect(said, seen).toContain(AFTER_CUT);
          expect(said, seen).toContain(QUESTION);
          // The request ran once: the message that read its rest was not passed on.
          expect(executor.executions, seen).toBe(executions + 1);
        }
      }
    },
    60_000,
  );

  it('a message on B while its caller still watches the turn on A: refused as a turn in progress, soon', async () => {
    for (const method of ['message/stream', 'message/send'] as const) {
      const contextId = `still-watched-${method.slice(8)}-${randomUUID()}`;
      const { gates, executor } = agents.of(contextId);
      gates.reset(1);
      const executions = executor.executions;
      const opened = await watchingOnA(contextId);
      const started = Date.now();
      expect(await send(replicaB.url, method, '杭州', contextId)).toContain(BUSY_WORDS);
      // Refused after a bounded moment (the wait for a turn its caller may have just left, LET_GO_ELSEWHERE_MS), not
      // after waiting for a release that never comes (the lane's lease, 30 s, renewed while the turn runs). The bound
      // lies between the two, far from the first: a loaded host adds seconds to a call that crosses two replicas.
      expect(Date.now() - started).toBeLessThan(LET_GO_ELSEWHERE_MS + 9_000);
      gates.open();
      // The caller who watched it reads the turn to its end; the refused message was not passed on.
      expect((await read(opened)).text).toContain(QUESTION);
      expect(executor.executions).toBe(executions + 1);
    }
  }, 60_000);
});
