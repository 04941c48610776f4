/**
 * A caller whose stream to iac-code drops mid-turn and who resubscribes (SubscribeToTask) keeps the message that
 * opened the task, on every binding (the official a2a-js 1.x client). iac-code's subscription opens with its
 * stored Task, which never holds that message (docs/iac-code.md); folded over the record, it took the recorded one
 * away, from ListTasks and from every GetTask after it, in the first turn and in a later one alike
 * (overRecord, task-registry/fold.ts, puts the record's back: first-message.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { StreamReader, collect, connect, listRequest, payloadRef, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({
    frameDelayMs: 40,
    script: { before: ['Planning the VPC. ', 'Writing it now. '], after: ['Done.'], artifact: { filename: 'main.tf' } },
  });
  gateway = await startTestGateway({ upstream: { url: fake.url }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

const BINDINGS: Record<string, () => Promise<Client>> = {
  JSONRPC: async () => (await connect(gateway.url, 'JSONRPC')).client,
  'HTTP+JSON': async () => (await connect(gateway.url, 'HTTP+JSON')).client,
  GRPC: () => connectGrpc(gateway.url),
};

/** One turn's messages as iac-code's history holds them: its chunks, then the final text again (assistantFinal). */
const TURN = ['Planning the VPC. ', 'Writing it now. ', 'Done.', 'Done.'];
const texts = (task: Task | undefined): string[] => (task?.history ?? []).map(textOf);

/** Stream `text`, drop the connection after two events, resubscribe and read the turn to its end. */
async function streamCutAndResubscribe(client: Client, text: string, ids: { contextId?: string; taskId?: string } = {}) {
  const stream = new StreamReader(client.sendMessageStream(sendRequest(text, ids)));
  const ref = payloadRef(await stream.expectNext());
  await stream.expectNext();
  await stream.close();
  await sleep(100);
  const resumed = await collect(client.resubscribeTask({ tenant: '', id: ref.taskId }));
  expect(resumed.at(-1)?.$case).toBe('statusUpdate');
  return ref;
}

/** The task as ListTasks shows it (the record, read first), then as GetTask does. */
async function readBoth(client: Client, ref: { taskId: string; contextId: string }): Promise<[string[], string[]]> {
  const listed = await client.listTasks(listRequest({ contextId: ref.contextId }));
  const got = await client.getTask({ tenant: '', id: ref.taskId, historyLength: undefined });
  return [texts(listed.tasks.find((task) => task.id === ref.taskId)), texts(got)];
}

describe.each(Object.keys(BINDINGS))('over %s', (binding) => {
  it('keeps the opening message after a disconnect and SubscribeToTask in the first turn', async () => {
    const client = await BINDINGS[binding]!();
    const ref = await streamCutAndResubscribe(client, 'template: a VPC');
    const expected = ['template: a VPC', ...TURN];
    expect(await readBoth(client, ref)).toEqual([expected, expected]);
  });

  it("keeps the first turn's opening message after a disconnect and SubscribeToTask in a follow-up", async () => {
    const client = await BINDINGS[binding]!();
    const first = new StreamReader(client.sendMessageStream(sendRequest('template: a VPC')));
    const ref = payloadRef(await first.expectNext());
    await first.rest();
    await streamCutAndResubscribe(client, 'now a subnet', ref);
    const expected = ['template: a VPC', ...TURN, 'now a subnet', ...TURN];
    expect(await readBoth(client, ref)).toEqual([expected, expected]);
  });
});
