/**
 * One caller's flood cannot make the memory registry forget another caller's context or tasks. The
 * registry's bounds (context owners: twice `tasks.max-tasks`, at least 1,000; tasks: `tasks.max-tasks`)
 * take from the principal holding the most entries, so Bob opening more contexts than the bound pushes
 * out his own: Alice's context stays hers (Bob naming it is refused, she goes on), and so does her task.
 * Before, Bob's 1,010 contexts evicted Alice's context owner: his message into her context was let
 * through to her conversation at the agent, and she was refused her own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
const ALICE_TOKEN = 'alice-token-aaaaaaaaaaaaaaaa';
const BOB_TOKEN = 'bob-token-bbbbbbbbbbbbbbbbbbbb';
const ALICE = { ...V1, authorization: `Bearer ${ALICE_TOKEN}` };
const BOB = { ...V1, authorization: `Bearer ${BOB_TOKEN}` };
// Past the context-owner bound of the smallest registry (1,000), with some to spare.
const FLOOD = 1_010;

async function call(url: string, headers: Record<string, string>, method: string, params: unknown): Promise<any> {
  const response = await fetch(`${url}/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return response.json();
}

const send = (url: string, headers: Record<string, string>, text: string, contextId?: string): Promise<any> =>
  call(url, headers, 'SendMessage', {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(contextId ? { contextId } : {}) },
  });

const replyText = (answer: any): string | undefined => answer.result?.task?.status?.message?.parts?.[0]?.text;

describe('a caller flooding the memory registry with contexts of its own', () => {
  let gateway: TestGateway;
  let aliceTask: { id: string; contextId: string };
  let afterFlood: { bobIntoAlices: any; aliceTaskLookup: any };

  beforeAll(async () => {
    gateway = await startSdkGateway({
      store: 'memory',
      tasks: { 'max-tasks': 10 },
      auth: { tokens: [ALICE_TOKEN, BOB_TOKEN] },
    });
    const first = await send(gateway.url, ALICE, 'my bank PIN is 4321');
    aliceTask = first.result.task;
    const refused = await send(gateway.url, BOB, 'hi', aliceTask.contextId);
    expect(refused.error?.code).toBe(-32602);
    let sent = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < FLOOD) {
          sent++;
          const answer = await send(gateway.url, BOB, 'x');
          expect(answer.error).toBeUndefined();
        }
      }),
    );
    afterFlood = {
      bobIntoAlices: await send(gateway.url, BOB, 'what did I say before?', aliceTask.contextId),
      aliceTaskLookup: await call(gateway.url, ALICE, 'GetTask', { id: aliceTask.id }),
    };
  }, 120_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it('cannot continue another caller’s conversation, and that caller goes on', async () => {
    const taken = afterFlood.bobIntoAlices;
    expect(taken.error?.code).toBe(-32602);
    expect(taken.error?.message).toBe(`Context ${aliceTask.contextId} is not available; start a new context`);
    expect(JSON.stringify(taken)).not.toContain('PIN');
    const continued = await send(gateway.url, ALICE, 'continue', aliceTask.contextId);
    expect(continued.error).toBeUndefined();
    expect(continued.result.task.contextId).toBe(aliceTask.contextId);
    expect(replyText(continued)).toBe('SDK echo (turn 2): continue');
  });

  it('cannot make the registry forget another caller’s task', () => {
    const found = afterFlood.aliceTaskLookup;
    expect(found.error).toBeUndefined();
    expect(found.result.id).toBe(aliceTask.id);
    expect(found.result.history?.[0]?.parts?.[0]?.text).toBe('my bank PIN is 4321');
  });
});
