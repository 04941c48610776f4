/**
 * A conversation's next message waits a moment for its caller's own turn to be let go (continuation.ts
 * previousEnded), on whichever replica runs it. Lanes are per context, whoever's: a message into another caller's
 * context must not wait on its lane. It is refused as "not available" whatever runs there, and a refusal that took
 * longer while a turn runs would tell its caller that one does. With `store: redis`, its lane is not even read.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, rpc, startFacadeGateway, userMessage } from '../../support/facade.js';
import { freshRedisStores, REDIS_URL, requireRedis } from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';
import { Gates, startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { BEFORE_CUT, CARD, QUESTION, read, RolloutAgent } from './rollout-agent.js';

const OTHER_KEY = 'bailian-test-key-other-4567';

/** The Redis commands (their arguments) this process sends while `counting`, on every connection. */
const commandsSent: string[] = [];
let counting = false;
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  if (counting) commandsSent.push(args[0].args.map(String).join(' '));
  return sendCommand.apply(this, args);
};

describe("a message into another caller's context", () => {
  const gates = new Gates();
  const stores = freshRedisStores('unwatched-other-callers', afterAll);
  const prefix = stores['redis-prefix'];
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    await requireRedis();
    agent = await startSdkTestAgent(CARD, new RolloutAgent(gates));
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, ...stores, bailian: { 'api-keys': [API_KEY, OTHER_KEY] } });
  });
  afterAll(async () => {
    gates.reset(0);
    Redis.prototype.sendCommand = sendCommand;
    await gateway?.close();
    await agent?.close();
  });

  /** Bob's message into `contextId`, three times: what he reads, and how long the quickest and the slowest took. */
  async function bobSends(contextId: string): Promise<{ said: string[]; quickest: number; slowest: number }> {
    const said: string[] = [];
    const took: number[] = [];
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const { body } = await rpc(
        gateway.url,
        'message/send',
        { message: userMessage({ text: '杭州', contextId }) },
        { headers: { 'X-API-KEY': OTHER_KEY } },
      );
      took.push(performance.now() - started);
      said.push(String(body.error?.message));
    }
    return { said, quickest: Math.min(...took), slowest: Math.max(...took) };
  }

  it('is refused as soon while her turn runs there as once it is over: nothing tells him a turn runs', async () => {
    gates.reset(1);
    const contextId = `alice-${Date.now()}`;
    const alice = await openStream(
      `${gateway.url}/stream`,
      'message/stream',
      { message: userMessage({ text: '创建 VPC，然后提问', contextId }) },
      { headers: { 'X-API-KEY': API_KEY } },
    );
    for (let frame = await alice.next(); frame && !JSON.stringify(frame.json).includes(BEFORE_CUT[1]!); frame = await alice.next());
    // Her context recorded as hers: until its first write lands, a context is anyone's (core/gateway.ts turnLetGo),
    // and on a busy host that write can come after her first words.
    const redis = new Redis(REDIS_URL);
    try {
      await waitUntil(async () => (await redis.keys(`${prefix}*ctx:${contextId}`)).length > 0);
    } finally {
      redis.disconnect();
    }
    counting = true;
    const whileRunning = await bobSends(contextId).finally(() => (counting = false));
    gates.open();
    expect((await read(alice)).text).toContain(QUESTION);
    const onceOver = await bobSends(contextId);

    expect(new Set([...whileRunning.said, ...onceOver.said]).size).toBe(1);
    expect(whileRunning.said[0]).toContain(contextId);
    expect(whileRunning.said[0]).not.toContain('智能体仍在处理');
    // Her lane is not read for his messages (what her turn sends to it names its holder's token, `<uuid>|`).
    expect(commandsSent.filter((command) => command.includes('lane:') && !command.includes('|'))).toEqual([]);
    // A wait for her turn (150 ms) is far past this margin; the refusal's own work is a few ms either way.
    expect(whileRunning.quickest).toBeLessThan(onceOver.slowest + 75);
  });
});
