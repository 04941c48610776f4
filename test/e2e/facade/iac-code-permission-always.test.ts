/**
 * A Bailian user who answers iac-code's permission prompt with "always allow" (in English, Chinese or
 * Japanese, alone or after a yes). iac-code's prompt offers `allow_once` and `deny` only: the user consented,
 * so the tool runs this once and the template is shown, in message/send as in message/stream, instead of
 * the user being told an answer is needed first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const TEMPLATE = 'resource "alicloud_vpc" "main" {}\n';
const AFTER = ['Wrote main.tf ✓'];
const RESUMED = `main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\`\n${AFTER.join('')}`;

describe('facade → iac-code: "always allow" answers the permission prompt', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-permission-always-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: {
        before: ['Drafting main.tf.'],
        after: AFTER,
        artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir },
        permission: true,
      },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function ask(text: string): Promise<string> {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text }) });
    const events = results(await stream.rest());
    // The prompt waits for the user's answer: Bailian is to route it back here.
    expect(events.at(-1)).toMatchObject({ final: true, status: { state: 'input-required' } });
    return events[0].contextId;
  }

  const answers: Array<[string, string, 'send' | 'stream']> = [
    ['Create a VPC for my shop please', 'always allow', 'send'],
    ['Create a VPC for my shop please', 'Yes, always allow.', 'stream'],
    ['帮我创建一个VPC的Terraform模板', '总是允许', 'stream'],
    ['帮我创建一个VPC的Terraform模板', '好的，始终允许', 'send'],
    ['VPCのテンプレートを作ってください', '常に許可', 'send'],
  ];
  for (const [request, answer, mode] of answers) {
    it(`"${answer}" (message/${mode}): allowed once, the template shown`, async () => {
      const contextId = await ask(request);
      const message = userMessage({ text: answer, contextId });
      const said =
        mode === 'send'
          ? sentText((await rpc(gateway.url, 'message/send', { message })).body.result)
          : streamedText(results(await (await openStream(`${gateway.url}/stream`, 'message/stream', { message })).rest()));
      expect(said).toBe(RESUMED);
      const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
      expect(sent.params.message.parts[0].data.decision).toBe('allow_once');
    });
  }

  it('"always allow?" asks back: it is asked again and nothing reaches iac-code', async () => {
    const contextId = await ask('Create a VPC for my shop please');
    const before = fake.rpcRequests().length;
    const again = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'always allow?', contextId }) });
    expect(sentText(again.body.result)).toMatch(/^An answer is needed first\./);
    // Asked again, the prompt still waits.
    expect(again.body.result.status.state).toBe('input-required');
    expect(fake.rpcRequests().filter((request) => request.rpcMethod !== 'GetTask').length).toBe(before);
  });
});
