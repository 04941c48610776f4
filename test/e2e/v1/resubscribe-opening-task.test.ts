/**
 * A caller who resubscribes (SubscribeToTask) to its own task reads the message that opened it in the Task the
 * subscription opens with, as GetTask shows it, on every binding (the official a2a-js 1.x client). iac-code's
 * subscription opens with its stored Task, and answers GetTask with it, which never holds that message
 * (docs/iac-code.md), nor does the demo agent's: GetTask puts the recorded one back first, and the subscription's
 * Task relayed as the agent sent it did not (recording.ts shows it as GetTask answers it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoAgent } from '../../../src/demo-agent/index.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { StreamReader, asTask, collect, connect, payloadRef, sendRequest, textOf, type Payload } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

let working: FakeIacCode;
let asking: FakeIacCode;
let gateway: TestGateway;
let askingGateway: TestGateway;
let demoGateway: TestGateway;
let closeDemo: () => Promise<void>;
beforeAll(async () => {
  // Each chunk of a `slow:` prompt 100 ms apart: the turn runs on for two seconds.
  const demo = await startDemoAgent({ slowChunkDelayMs: 100 });
  closeDemo = () => demo.close();
  working = await startFakeIacCode({
    frameDelayMs: 40,
    script: { before: ['Planning the VPC. ', 'Writing it now. '], after: ['Done.'], artifact: { filename: 'main.tf' } },
  });
  asking = await startFakeIacCode({
    script: { before: ['Drafting main.tf. '], after: ['Wrote main.tf.'], artifact: { filename: 'main.tf' }, permission: true },
  });
  gateway = await startTestGateway({ upstream: { url: working.url }, grpc: { port: 0 } });
  askingGateway = await startTestGateway({ upstream: { url: asking.url }, grpc: { port: 0 } });
  demoGateway = await startTestGateway({ upstream: { url: demo.url }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  await askingGateway?.close();
  await demoGateway?.close();
  await closeDemo?.();
  await working?.close();
  await asking?.close();
});

const BINDINGS: Record<string, (url: string) => Promise<Client>> = {
  JSONRPC: async (url) => (await connect(url, 'JSONRPC')).client,
  'HTTP+JSON': async (url) => (await connect(url, 'HTTP+JSON')).client,
  GRPC: (url) => connectGrpc(url),
};

const texts = (task: Task | undefined): string[] => (task?.history ?? []).map(textOf);

/** The Task a subscription opened with (it must open with one, A2A 1.0 §3.1.6). */
function openingTask(events: Payload[]): Task {
  const first = events[0];
  expect(first?.$case).toBe('task');
  return (first as Extract<Payload, { $case: 'task' }>).value;
}

/** A running turn of each upstream: the gateway in front of it, and what the caller asks. */
const RUNNING: Record<string, () => { url: string; text: string }> = {
  'iac-code': () => ({ url: gateway.url, text: 'template: a VPC' }),
  'the demo agent': () => ({ url: demoGateway.url, text: 'slow: one two three four five six seven eight nine ten' }),
};

describe.each(Object.keys(BINDINGS))('over %s', (binding) => {
  it.each(Object.keys(RUNNING))('opens a subscription to a running task of %s with its opening message, as GetTask shows it', async (upstream) => {
    const { url, text } = RUNNING[upstream]!();
    const client = await BINDINGS[binding]!(url);
    const stream = new StreamReader(client.sendMessageStream(sendRequest(text)));
    const ref = payloadRef(await stream.expectNext());
    await stream.expectNext();
    await stream.close();
    await sleep(100);
    const resumed = await collect(client.resubscribeTask({ tenant: '', id: ref.taskId }));
    const got = await client.getTask({ tenant: '', id: ref.taskId, historyLength: undefined });
    const opened = texts(openingTask(resumed));
    expect(opened[0]).toBe(text);
    expect(openingTask(resumed).history[0]?.role).toBe(got.history[0]?.role);
    // The turn ran on after the subscription opened: what it opened with is where GetTask's history starts.
    expect(texts(got).slice(0, opened.length)).toEqual(opened);
  });

  it('answers a subscription to an input-required task with the Task GetTask answers', async () => {
    const client = await BINDINGS[binding]!(askingGateway.url);
    const asked = asTask(await client.sendMessage(sendRequest('template: a VPC')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const resumed = await collect(client.resubscribeTask({ tenant: '', id: asked.id }));
    const got = await client.getTask({ tenant: '', id: asked.id, historyLength: undefined });
    expect(resumed).toHaveLength(1);
    expect(texts(got)).toEqual(['template: a VPC', 'Drafting main.tf. ']);
    expect(openingTask(resumed).history).toEqual(got.history);
  });
});
