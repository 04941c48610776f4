/**
 * The reply artifact keeps one id wherever a turn's reply is shown (docs/facade-reply.md, "tasks/get"), read with
 * the official 0.2.5 client in front of the fake iac-code: what tasks/resubscribe streams of a turn, the rest of a
 * turn its user stopped watching shown on the next message, and a permission prompt asked again carry the reply
 * artifact under the id tasks/get shows it by, so a client that merges what it reads by artifactId shows the reply once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { collect, openStream, sdkParams, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const ids = (artifacts: any[] | undefined): string[] => (artifacts ?? []).map((artifact) => artifact.artifactId).sort();
const streamedIds = (events: any[]): string[] =>
  [...new Set(events.filter((e) => e.kind === 'artifact-update').map((e) => e.artifact.artifactId as string))].sort();

describe('the reply artifact of a turn read again, followed or asked again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-reply-ids-'));
  let fake: FakeIacCode;
  let asking: FakeIacCode;
  let gateway: RunningGateway;
  let askingGateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    fake = await startFakeIacCode({ frameDelayMs: 40 });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    client = new A2AClient(gateway.url);
    asking = await startFakeIacCode({
      script: {
        before: ['Drafting ', 'main.tf.'],
        after: ['Wrote main.tf ✓'],
        artifact: { filename: 'main.tf', content: Buffer.from('x\n'), dir },
        permission: true,
      },
    });
    askingGateway = await startFacadeGateway({ upstream: { url: asking.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway?.close();
    await askingGateway?.close();
    await fake?.close();
    await asking?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const upstreamState = (taskId: string): unknown => (fake.tasks.get(taskId)?.status as { state?: string } | undefined)?.state;

  it('tasks/resubscribe: the reply artifact streamed is the one message/stream and tasks/get show', async () => {
    const stream = client.sendMessageStream(sdkParams('make a vpc'))[Symbol.asyncIterator]();
    const head: any = (await stream.next()).value;
    const [followed, streamed] = await Promise.all([
      collect(client.resubscribeTask({ id: head.id })),
      (async () => {
        const rest: any[] = [head];
        for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value);
        return rest;
      })(),
    ]);
    const { result: got }: any = await client.getTask({ id: head.id });
    expect(streamedIds(followed)).toHaveLength(1);
    expect(streamedIds(followed)).toEqual(streamedIds(streamed));
    expect(ids(got.artifacts)).toEqual(streamedIds(followed));
  });

  it("a turn its user stopped watching: the next message shows its rest under the turn's reply artifact, as tasks/get does", async () => {
    const contextId = `ctx-${Math.random()}`;
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'make a vpc', contextId }) });
    const head = (await stream.next())?.json.result;
    stream.abort();
    await waitUntil(async () => upstreamState(head.id) === 'TASK_STATE_INPUT_REQUIRED');
    const { result: next }: any = await client.sendMessage(sdkParams('and a vSwitch', { contextId }));
    expect(next.id).toBe(head.id);
    const { result: got }: any = await client.getTask({ id: head.id });
    expect(ids(next.artifacts)).toHaveLength(1);
    expect(ids(got.artifacts)).toEqual(ids(next.artifacts));
  });

  it('a permission prompt asked again: the reply artifact is the one tasks/get shows the prompt under', async () => {
    const asker = new A2AClient(askingGateway.url);
    const { result: asked }: any = await asker.sendMessage(sdkParams('Create a VPC'));
    const { result: again }: any = await asker.sendMessage(sdkParams('maybe', { contextId: asked.contextId }));
    expect(again.id).toBe(asked.id);
    expect(JSON.stringify(again.artifacts)).toContain('Allow once');
    const { result: got }: any = await asker.getTask({ id: asked.id });
    expect(ids(again.artifacts)).toEqual(ids(got.artifacts));
  });
});
