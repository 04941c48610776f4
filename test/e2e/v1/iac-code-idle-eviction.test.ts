/**
 * A 1.0 caller (the official a2a-js 1.x client) names its tasks itself, so when iac-code evicted its idle
 * conversation the caller reads iac-code's own answer to a follow-up into the forgotten task, as A2A has it:
 * the task ends FAILED with iac-code's reason, in a stream as in a blocking call; the gateway sends nothing
 * again for it (the 0.2.5 facade does, for the tasks it picked itself: test/e2e/facade/iac-code-idle-eviction.test.ts).
 * A further message to that task is refused as to any finished task, and a new task of the same context goes on.
 */
import { TaskState, type TaskStatus } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_EXPIRED } from '../../support/fake-iac-code-eviction.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, collect, connect, sendRequest, textOf, type Payload, type RecordingClient } from '../../support/sdk-v1-client.js';

let fake: FakeIacCode;
let gateway: TestGateway;
let v1: RecordingClient;

beforeAll(async () => {
  fake = await startFakeIacCode();
  gateway = await startTestGateway({ upstream: { url: fake.url } });
  v1 = await connect(gateway.url, 'JSONRPC');
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

/** The status the last status update of a stream reports. */
const lastStatus = (payloads: Payload[]): TaskStatus | undefined =>
  payloads.flatMap((payload) => (payload.$case === 'statusUpdate' ? [payload.value.status] : [])).at(-1);

const sentTurns = () => fake.rpcRequests().filter((r) => r.rpcMethod === 'SendStreamingMessage' || r.rpcMethod === 'SendMessage').length;

describe('1.0 → iac-code: a follow-up into a task iac-code evicted', () => {
  it.each(['stream', 'send'] as const)("%s: the task fails with iac-code's reason, sent once; the context goes on in a new task", async (mode) => {
    const first = asTask(await v1.client.sendMessage(sendRequest('make a vpc', { contextId: `v1-evicted-${mode}-${process.pid}` })));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    fake.evictContext(first.contextId);
    const before = sentTurns();
    const ids = { contextId: first.contextId, taskId: first.id };
    const status =
      mode === 'stream'
        ? lastStatus(await collect(v1.client.sendMessageStream(sendRequest('and a vswitch', ids))))
        : asTask(await v1.client.sendMessage(sendRequest('and a vswitch', ids))).status;
    expect(status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(status?.message)).toBe(TASK_EXPIRED);
    expect(sentTurns() - before).toBe(1);

    await expect(v1.client.sendMessage(sendRequest('again', ids))).rejects.toThrow(/terminal state/);
    const next = asTask(await v1.client.sendMessage(sendRequest('and a vswitch', { contextId: first.contextId })));
    expect(next.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(next.id).not.toBe(first.id);
  });
});
