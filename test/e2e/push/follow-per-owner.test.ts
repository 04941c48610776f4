/**
 * `push-follow-max` is one pool for the replica: one API key whose streams with a webhook are left mid-turn
 * must not fill it, or another key's turn end is never pushed. Each caller gets at most
 * `push-follow-max-per-owner` of the follows; past it only its own turn's end goes unpushed (logged).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startHeldTurnsAgent, type HeldTurn, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { waitUntil } from '../../support/wait-until.js';
import { Receiver } from './harness.js';

const ALICE = 'alice-key-aaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const BOB = 'bob-key-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const PER_OWNER_REFUSED = /push-follow-max-per-owner/;
let agent: HeldTurnsAgent;
let receiver: Receiver;
let gateway: TestGateway;
let dir: string;
const turns = new Set<HeldTurn>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'push-follow-owner-'));
  agent = await startHeldTurnsAgent();
  receiver = await new Receiver().up();
  gateway = await startTestGateway({
    upstream: { url: agent.url },
    auth: { 'api-keys': [ALICE, BOB] },
    'push-notifications': true,
    'push-allow-private': true,
    'push-follow-max': 3,
    'push-follow-max-per-owner': 2,
    'persistence-dir': dir,
  });
});
afterAll(async () => {
  for (const turn of turns) turn.complete();
  await gateway?.close();
  await receiver?.down();
  await agent?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A streamed turn with an inline webhook at `path`; the caller leaves after the first event, so the gateway follows it. */
async function streamAndLeave(key: string, path: string): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': key, accept: 'text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: path }] },
        configuration: { taskPushNotificationConfig: { id: 'hook', url: `${receiver.url}${path}`, token: 't' } },
      },
    }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('"taskId":"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before its task: ${text}`);
    text += new TextDecoder().decode(value);
  }
  for (const turn of agent.held()) turns.add(turn);
  controller.abort();
}

/** Turns the gateway followed, or refused to follow as past a cap (logged). */
const followedOrRefused = () => agent.calls('SubscribeToTask') + gateway.log().filter((line) => /push-follow-max/.test(line.msg)).length;

it("another key's turn end is pushed though one key left more turns with webhooks than the replica follows", async () => {
  for (let i = 0; i < 3; i++) await streamAndLeave(ALICE, `/alice-${i}`);
  await Promise.all([...turns].map((turn) => turn.closed));
  await waitUntil(async () => followedOrRefused() >= 3);
  await streamAndLeave(BOB, '/bob');
  expect(turns.size).toBe(4);
  await Promise.all([...turns].map((turn) => turn.closed));
  await waitUntil(async () => followedOrRefused() >= 4);
  for (const turn of turns) turn.complete();

  // Bob's webhook gets his turn's end, as Alice's first two get theirs.
  const turnEndAt = (path: string) => async () => receiver.at(path).some((request) => request.body.includes('TASK_STATE_COMPLETED'));
  for (const path of ['/bob', '/alice-0', '/alice-1']) {
    await waitUntil(turnEndAt(path), 10_000).catch(() => expect.fail(`no turn end was pushed to ${path}`));
  }
  // Her third was the one past her share: the operator reads why its end was not pushed.
  expect(gateway.log().filter((line) => PER_OWNER_REFUSED.test(line.msg))).toHaveLength(1);
});
