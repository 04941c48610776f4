/**
 * A Bailian user asks iac-code for a template, then for changes in the same conversation (iac-code continues the
 * same task, which keeps every turn's files). The gateway reads iac-code's files (`upstream.artifact-dir`), so
 * the user reads each template itself. When a follow-up's rest is read from the task (iac-code's stream of it
 * broke off; the user hung up, or its message/send ran out of time, and the next message shows the rest), the
 * user reads that turn's own template once, where it came among the words, not the conversation's earlier
 * templates again: the task before the turn (the gateway's record, iac-code's URLs) and the task the rest is
 * read from (the files' bytes) are two copies of the same earlier files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, reading, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const TEMPLATE = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
const SHOWN_TEMPLATE = `main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\``;
const BEFORE = Array.from({ length: 10 }, (_, i) => `第${i + 1}步。`);
const AFTER = '请确认。';
/** The upstream frames a follow-up's stream carries before it is cut: its opening statuses and a few words, never the tool call. */
const CUT_AFTER_FRAMES = 8;
/** How long a bound to pass (the gateway's request timeout) is, and how long iac-code's stream stays quiet past it. */
const REQUEST_TIMEOUT_MS = 2_000;
const QUIET_MS = 6_000;

const copies = (text: string): number => text.split(SHOWN_TEMPLATE).length - 1;

/** The turn's words, its template once among them and its closing words after it. */
function expectOneTemplateAfterWords(text: string): void {
  expect(copies(text)).toBe(1);
  expect(text.indexOf('第10步。')).toBeGreaterThanOrEqual(0);
  expect(text.indexOf('第10步。')).toBeLessThan(text.indexOf(SHOWN_TEMPLATE));
  expect(text.indexOf(SHOWN_TEMPLATE)).toBeLessThan(text.lastIndexOf(AFTER));
}

describe('a follow-up whose rest is read from the task shows its own template once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'follow-up-rest-files-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: { before: BEFORE, after: [AFTER], artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir, 'request-timeout-ms': REQUEST_TIMEOUT_MS } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A conversation of two finished template turns (each shows its template once): the task then holds two files. */
  async function conversationWithTwoTemplates(contextId: string): Promise<void> {
    for (const ask of ['请生成 VPC、ECS 和 RDS 的 Terraform 模板', '把 CIDR 改成 10.0.0.0/8']) {
      const text = await reading(gateway.url, 'message/send', ask, contextId);
      expect(copies(text)).toBe(1);
    }
  }

  /** iac-code ended the conversation's third turn (its task waits for input again, with a third file). */
  const thirdTurnEnded = async (contextId: string): Promise<boolean> => {
    const task = [...fake.tasks.values()].find((stored) => stored.contextId === contextId) as any;
    return task?.status?.state === 'TASK_STATE_INPUT_REQUIRED' && task.artifacts?.length === 3;
  };

  /** What the conversation's next message shows: the cut turn's rest, the message itself not sent to iac-code. */
  async function restShownByNextMessage(contextId: string): Promise<string> {
    const sent = fake.rpcRequests('SendStreamingMessage').length;
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '好了吗？', contextId }) });
    expect(fake.rpcRequests('SendStreamingMessage')).toHaveLength(sent);
    return sentText(next.body.result);
  }

  it.each(['message/stream', 'message/send'] as const)('%s: iac-code’s stream of the follow-up breaks off before its tool call', async (method) => {
    const contextId = `ctx-broken-${method.replace('/', '-')}`;
    await conversationWithTwoTemplates(contextId);
    fake.injectFault({ name: 'kill-mid-stream', after: CUT_AFTER_FRAMES }, { method: 'SendStreamingMessage' });
    const text = await reading(gateway.url, method, '再加一个 VSwitch', contextId);
    expect(text.startsWith(BEFORE.join(''))).toBe(true);
    expectOneTemplateAfterWords(text);
  });

  it('message/stream: the user hung up on the follow-up, and the next message shows its rest', async () => {
    const contextId = 'ctx-hung-up';
    await conversationWithTwoTemplates(contextId);
    // iac-code's stream stays quiet after a few words (the turn goes on at iac-code) while the user hangs up.
    fake.injectFault({ name: 'quiet', after: CUT_AFTER_FRAMES, ms: QUIET_MS }, { method: 'SendStreamingMessage' });
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: '再加一个 VSwitch', contextId }) });
    const read = [(await stream.next())!, (await stream.next())!];
    stream.abort();
    await waitUntil(() => thirdTurnEnded(contextId));
    const rest = await restShownByNextMessage(contextId);
    expect(streamedText(results(read))).not.toContain('main.tf');
    expect(rest).toContain('第10步。');
    expectOneTemplateAfterWords(rest);
  });

  it('message/send: the follow-up ran out of time, and the next message shows its rest', async () => {
    const contextId = 'ctx-timed-out';
    await conversationWithTwoTemplates(contextId);
    fake.injectFault({ name: 'quiet', after: CUT_AFTER_FRAMES, ms: QUIET_MS }, { method: 'SendStreamingMessage' });
    const first = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '再加一个 VSwitch', contextId }) });
    expect(first.body.result.status.state).toBe('failed');
    expect(copies(sentText(first.body.result))).toBe(0);
    await waitUntil(() => thirdTurnEnded(contextId));
    const rest = await restShownByNextMessage(contextId);
    expectOneTemplateAfterWords(rest);
  });
});
