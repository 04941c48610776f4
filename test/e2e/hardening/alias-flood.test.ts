/**
 * One Bailian caller naming task ids by the thousand cannot make the facade forget the id another caller
 * named its task by. The aliases' bound (`tasks.max-tasks`) takes from the principal holding the most
 * (fair-lru.ts), so Bob's flood of ids pushes out his own. Before, Bob's ids flushed Alice's alias: her
 * tasks/get by her own id was told the task was not found, and her follow-up opened a new task.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { demoReply } from '../../../src/demo-agent/index.js';
import { API_KEY, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';

const OTHER_KEY = 'bailian-other-key-4567';
const ALICE = { 'X-API-KEY': API_KEY };
const BOB = { 'X-API-KEY': OTHER_KEY };
// Past the aliases' bound of 10, with some to spare.
const FLOOD = 30;

describe('a Bailian caller flooding the facade with task ids of its own', () => {
  let gateway: RunningGateway;
  const aliceId = `alice-order-${randomUUID()}`;
  const send = (headers: Record<string, string>, text: string, taskId: string) =>
    rpc(gateway.url, 'message/send', { message: userMessage({ text, taskId }) }, { headers });

  beforeAll(async () => {
    gateway = await startFacadeGateway({ tasks: { 'max-tasks': 10 }, bailian: { 'api-keys': [API_KEY, OTHER_KEY] } });
    const first = await send(ALICE, 'my order', aliceId);
    expect(first.body.result).toMatchObject({ kind: 'task', id: aliceId, status: { state: 'completed' } });
    for (let i = 0; i < FLOOD; i++) {
      const answer = await send(BOB, 'x', `bob-order-${i}`);
      expect(answer.body.error).toBeUndefined();
    }
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it("cannot make the facade forget another caller's task id: she gets her task and goes on with it", async () => {
    const got = await rpc(gateway.url, 'tasks/get', { id: aliceId }, { headers: ALICE });
    expect(got.body.error).toBeUndefined();
    expect(got.body.result).toMatchObject({ kind: 'task', id: aliceId });
    const again = await send(ALICE, 'my order again', aliceId);
    expect(again.body.result).toMatchObject({ id: aliceId, contextId: got.body.result.contextId });
    // The agent's second turn in her task, not the first of a new one.
    expect(sentText(again.body.result)).toBe(demoReply('my order again', 2).full);
  });

  it('the flood forgets the flooder’s own oldest ids', async () => {
    const oldest = await rpc(gateway.url, 'tasks/get', { id: 'bob-order-0' }, { headers: BOB });
    expect(oldest.body.error?.code).toBe(-32001);
    const latest = await rpc(gateway.url, 'tasks/get', { id: `bob-order-${FLOOD - 1}` }, { headers: BOB });
    expect(latest.body.result).toMatchObject({ id: `bob-order-${FLOOD - 1}` });
  });
});
