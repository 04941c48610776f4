/**
 * Bailian hangs up a running message/stream, then cancels that task itself (tasks/cancel), and reads the canceled
 * task, its reply so far, in the cancel's answer. The turn's rest was noted for the conversation's next message
 * (unwatched-turns.ts), because the agent went on with an answer its user never read; the cancel ends the turn
 * and its user read how it ended, so the next message is the caller's own again: sent to the agent and answered,
 * not swallowed as "the rest of the reply to your previous message". A hang-up without a cancel still shows the
 * rest. The official 0.2.5 client makes the cancel and the next message, in front of a real a2a-js 0.2.5 agent;
 * with the notes in memory and in Redis.
 */
import { randomUUID } from 'node:crypto';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../../support/redis.js';
import { startSdkV025Agent, V025_SLOW_PREFIX, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';

const LEFT_PROMPT = `${V025_SLOW_PREFIX} plan the network`;
/** How the message that reads a left turn's rest opens, and says it was not sent (words.cutTurnRest). */
const NOT_SENT = 'The message you just sent was not passed to the agent';

const stores = {
  memory: {},
  redis: { store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `a2a-bridge-test:unwatched-canceled:${randomUUID()}:` },
};

// Each case a conversation of its own: the cases, and the two stores' gateways, run at once.
describe.concurrent.each(Object.keys(stores) as Array<keyof typeof stores>)('a hung-up turn its caller then canceled, notes in %s', (store) => {
  let agent: RunningSdkV025Agent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    if (store === 'redis') await requireRedis();
    // The left turn's 18 chunks take 1.4 s: the cancel, sent once the first is read, comes while it still runs.
    agent = await startSdkV025Agent({ slowChunkDelayMs: 80 });
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, ...stores[store] });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
    if (store === 'redis') await deleteRedisKeys(stores.redis['redis-prefix']);
  });

  /** A message/stream read up to the reply's first words, then hung up, as Bailian does at its own time-out. */
  async function hungUpTurn(contextId: string): Promise<{ id: string; read: string }> {
    const stream = await openStream(gateway.url, 'message/stream', { message: userMessage({ text: LEFT_PROMPT, contextId }) });
    let id = '';
    let read = '';
    for (let frame = await stream.next(); frame && read === ''; frame = await stream.next()) {
      const result = frame.json.result;
      id ||= result.id ?? result.taskId;
      if (result.kind === 'artifact-update') read = result.artifact.parts.map((part: any) => part.text ?? '').join('');
    }
    stream.abort();
    return { id, read };
  }

  /** What the user reads of the conversation's next message, sent with the official client. */
  async function nextMessage(contextId: string): Promise<string> {
    const answer: any = await client.sendMessage({ message: userMessage({ text: 'start over', contextId }) as any });
    expect(answer.error).toBeUndefined();
    return sentText(answer.result);
  }

  it('the next message after the cancel reaches the agent and is answered', async () => {
    const contextId = randomUUID();
    const left = await hungUpTurn(contextId);
    expect(left.read).not.toBe('');
    const canceled: any = await client.cancelTask({ id: left.id });
    expect(canceled.error).toBeUndefined();
    expect(canceled.result.status.state).toBe('failed'); // bailian's word for a canceled task
    expect(sentText(canceled.result)).toContain('Canceled by request.');

    const said = await nextMessage(contextId);
    expect(said).toContain('v025 echo (turn 2): start over');
    expect(said).not.toContain(NOT_SENT);
    expect(said).not.toContain('plan the network');
  });

  it('without a cancel, the next message shows the left turn’s rest instead (the note stands)', async () => {
    const contextId = randomUUID();
    await hungUpTurn(contextId);
    const said = await nextMessage(contextId);
    expect(said).toContain(NOT_SENT);
    expect(said).not.toContain('start over');
  });
});
