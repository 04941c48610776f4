/**
 * While iac-code asks for permission, tasks/get of the task reads the same on every read (the official 0.2.5
 * client): its status timestamp is the task's own, not the moment of the read, so a client that polls the task and
 * diffs what it reads sees no change where nothing changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { sdkParams, startFacadeGateway } from '../../support/facade.js';

describe.each(['a2a-0.2.5', 'bailian'] as const)('tasks/get of a task waiting on a permission answer (%s profile)', (profile) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-permission-get-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: {
        before: ['Drafting ', 'main.tf.'],
        after: ['Wrote main.tf ✓'],
        artifact: { filename: 'main.tf', content: Buffer.from('x\n'), dir },
        permission: true,
      },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir }, bailian: { profile } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the same twice, its status timestamp the one the task holds, none when it holds none', async () => {
    const { result: sent }: any = await client.sendMessage(sdkParams('Create a VPC'));
    const { result: first }: any = await client.getTask({ id: sent.id });
    await sleep(30);
    const { result: second }: any = await client.getTask({ id: sent.id });
    expect(second).toEqual(first);
    // iac-code stamps no time on its prompt: the facade adds none (0.2.5's is optional), rather than the read's.
    const agentTask = fake.tasks.get(sent.id) as any;
    expect(agentTask.status.timestamp).toBeUndefined();
    expect(first.status).not.toHaveProperty('timestamp');
  });
});
