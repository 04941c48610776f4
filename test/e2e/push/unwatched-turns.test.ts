/**
 * "Nothing accepted is lost": a turn whose task has a webhook is pushed its end though no stream of
 * the gateway watches it to that end. The caller of the stream walks away, or registers its webhook
 * only after it walked away; the agent is a real a2a-js 1.x server whose `slow:` turn takes seconds.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream, sentText, userMessage } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { Receiver } from './harness.js';
import { finalWords, pushedStates, rpc, streamUntilTask } from './unwatched.js';

/** A slow turn runs about 3 s (its reply and ten "." chunks, 200 ms apart). */
const SLOW_CHUNK_MS = 200;
const COMPLETED = 'TASK_STATE_COMPLETED';

let agent: RunningSdkV1Agent;
let receiver: Receiver;
let gateway: TestGateway;
let dir: string;

const slowTurn = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `slow: ${text}` }] });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-push-unwatched-'));
  agent = await startSdkV1Agent({ slowChunkDelayMs: SLOW_CHUNK_MS });
  receiver = await new Receiver().up();
  gateway = await startTestGateway({
    upstream: { url: agent.url },
    'push-notifications': true,
    'push-allow-private': true,
    'persistence-dir': dir,
  });
});

afterAll(async () => {
  await gateway?.close();
  await receiver?.down();
  await agent?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Waits for the webhook's turn end, then a little more: a second push of it would have come by then. */
async function endPushedTo(path: string) {
  await receiver.waitFor(path, 1, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return receiver.at(path);
}

// Each test's turn is its own, pushed to a path of its own: side by side, the slow turns overlap.
describe.concurrent('a turn with a webhook that no stream watches to its end', () => {
  it('a streaming caller with an inline webhook leaves mid-turn: the webhook is still pushed the end, once', async () => {
    const { taskId } = await streamUntilTask(gateway.url, {
      message: slowTurn('the caller leaves'),
      configuration: { taskPushNotificationConfig: { id: 'inline', url: `${receiver.url}/left`, token: 't' } },
    });
    const pushed = await endPushedTo('/left');
    expect(pushedStates(pushed)).toEqual([COMPLETED]);
    expect(finalWords(pushed)).toContain('the caller leaves');
    expect(pushed[0]!.headers['x-a2a-notification-token']).toBe('t');
    const read = await rpc(gateway.url, 'GetTask', { id: taskId, historyLength: 0 });
    expect(read.result.status.state).toBe(COMPLETED);
  });

  it('a Bailian (0.2.5) caller of message/stream with a pushNotificationConfig leaves mid-turn: the webhook gets the finished Task', async () => {
    const stream = await openStream(`${gateway.url}/`, 'message/stream', {
      message: userMessage({ text: 'slow: Bailian leaves' }),
      configuration: { pushNotificationConfig: { url: `${receiver.url}/bailian`, token: 'b' } },
    });
    const first = await stream.next();
    expect(first?.json.result).toBeDefined();
    stream.abort();
    const pushed = await endPushedTo('/bailian');
    expect(pushed).toHaveLength(1);
    const finished = pushed[0]!.json as { kind: string; status: { state: string } };
    expect(finished).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    // What the Bailian user is shown: the agent's last words, in the finished Task's reply (Bailian reads the artifacts alone).
    expect(sentText(finished)).toContain('slow: Bailian leaves');
  });

  it('a caller that left registers its webhook on the running task: the webhook is pushed the end', async () => {
    const { taskId } = await streamUntilTask(gateway.url, { message: slowTurn('registered late') });
    const created = await rpc(gateway.url, 'CreateTaskPushNotificationConfig', { taskId, id: 'late', url: `${receiver.url}/late` });
    expect(created.error).toBeUndefined();
    const pushed = await endPushedTo('/late');
    expect(pushedStates(pushed)).toEqual([COMPLETED]);
    expect(finalWords(pushed)).toContain('registered late');
  });

  it('a webhook registered while the caller still streams is pushed the end once, by the stream', async () => {
    const stream = await streamUntilTask(gateway.url, { message: slowTurn('still watched') }, false);
    const created = await rpc(gateway.url, 'CreateTaskPushNotificationConfig', { taskId: stream.taskId, id: 'w', url: `${receiver.url}/watched` });
    expect(created.error).toBeUndefined();
    expect(await stream.done).toContain(COMPLETED);
    const pushed = await endPushedTo('/watched');
    expect(pushedStates(pushed)).toEqual([COMPLETED]);
  });
});
