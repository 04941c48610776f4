/**
 * A Bailian caller that answers iac-code's permission prompt without waiting (`message/send` with `blocking:
 * false`): the facade sends the answer the non-streaming way, which iac-code as captured never answers (it queues
 * it behind the paused request; docs/iac-code.md), so the caller waited out `upstream.request-timeout-ms` and the
 * prompt stayed unanswered. The answer is taken at once and the turn goes on: tasks/get then shows the template.
 * Against the fake iac-code, whichever way its prompt waits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { PERMISSION_PROMPT } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const TEMPLATE = 'resource "alicloud_vpc" "main" {}\n';

describe.each(['open', 'parked'] as const)('facade → iac-code asking for permission (the prompt waits %s)', (permissionWait) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-permission-not-waiting-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: {
        before: ['Drafting main.tf.'],
        after: ['Wrote main.tf.'],
        artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir },
        permission: true,
      },
      permissionWait,
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('"Allow once" sent with blocking: false is taken at once; the turn goes on and tasks/get shows the template', async ({ expect }) => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Create a VPC' }) });
    const events = results(await stream.rest());
    expect(streamedText(events)).toContain(PERMISSION_PROMPT);
    const contextId = events[0].contextId as string;

    const answer = await rpc(gateway.url, 'message/send', {
      message: userMessage({ text: 'Allow once', contextId }),
      configuration: { blocking: false },
    });
    expect(answer.body.error).toBeUndefined();
    const taskId = answer.body.result.id as string;
    // iac-code answers a permission answer only on a stream.
    const answers = fake.rpcRequests().filter((request) => {
      const body = request.body as { params: { message?: { parts: Array<{ data?: { kind?: string } }> } } };
      return body.params.message?.parts[0]?.data?.kind === 'permission';
    });
    expect(answers.map((request) => request.rpcMethod)).toEqual(['SendStreamingMessage']);

    await expect
      .poll(async () => sentText((await rpc(gateway.url, 'tasks/get', { id: taskId })).body.result), { timeout: 10_000 })
      .toContain(TEMPLATE);
  });
});
