/**
 * tasks/get of an iac-code turn that writes its file before saying anything: every turn that answers a permission
 * prompt, and any turn whose first act is the tool call. iac-code keeps the words after the tool call as streamed
 * pieces and then once more whole (`assistantFinal`, an id of its own); those pieces are the turn's whole text, so
 * the task's conversation keeps the whole message alone. The reply tasks/get shows must still be message/send's:
 * the file with its template, then the words written after it, never the template last.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';

const TEMPLATE = 'resource "alicloud_vpc" "main" {}\n';
const REPLY = `main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\`\nWrote main.tf ✓`;

describe.each([
  { turn: 'a turn whose first act is the tool call', permission: false },
  { turn: 'the turn that answers a permission prompt', permission: true },
])('iac-code: tasks/get of $turn', ({ permission }) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-get-file-first-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    const before = permission ? ['Drafting main.tf.'] : [];
    const artifact = { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir };
    fake = await startFakeIacCode({ script: { before, after: ['Wrote main.tf ✓'], artifact, permission } });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the template, then the words after it, as message/send did', async () => {
    let sent = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }) })).body.result;
    if (permission) {
      expect(sent.status.state).toBe('input-required');
      expect(sentText(sent)).toContain('Allow once');
      const answer = userMessage({ text: 'Allow once', contextId: sent.contextId });
      sent = (await rpc(gateway.url, 'message/send', { message: answer })).body.result;
    }
    expect(sentText(sent)).toBe(REPLY);
    const got = (await rpc(gateway.url, 'tasks/get', { id: sent.id })).body.result;
    expect(got.status.state).toBe('completed');
    expect(sentText(got)).toBe(REPLY);
    // The history is still the conversation: the words after the file once, not each streamed piece too.
    const said = (got.history as { role: string; parts: { text?: string }[] }[])
      .filter((message) => message.role === 'agent')
      .map((message) => message.parts.map((part) => part.text ?? '').join(''));
    expect(said.filter((text) => text === 'Wrote main.tf ✓')).toHaveLength(1);
  });
});
