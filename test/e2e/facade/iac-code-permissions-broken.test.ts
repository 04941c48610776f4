/**
 * iac-code's stream breaks off after the facade sent a Bailian user's permission answer: iac-code goes on
 * with the turn regardless, so the facade follows the task again (SubscribeToTask; a turn already over is
 * "not active" and read once instead) until the turn is over and the user reads the rest
 * of it (the template, iac-code's last words) as if the stream had not broken, over message/send and
 * message/stream alike. Only when the task cannot be read either does the turn fail, showing why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { PERMISSION_PROMPT } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const BEFORE = ['Drafting ', 'main.tf.'];
const AFTER = ['Wrote ', 'main.tf ✓'];
const TEMPLATE = 'resource "alicloud_vpc" "main" {}\n';
const QUESTION = `${PERMISSION_PROMPT}\nReply "Allow once" or "Deny".`;
/** What the user reads of the answer's turn when nothing breaks. */
const REST = `main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\`\n${AFTER.join('')}`;

// `frameDelayMs`: 0, the turn is over when the facade reads the task; 40, it still works and is read again until it is over.
describe.each([
  { permissionWait: 'open', frameDelayMs: 0 },
  { permissionWait: 'parked', frameDelayMs: 0 },
  { permissionWait: 'parked', frameDelayMs: 40 },
] as const)('facade → iac-code whose stream breaks off after the permission answer (%o)', ({ permissionWait, frameDelayMs }) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-permission-broken-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: { before: BEFORE, after: AFTER, artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir }, permission: true },
      permissionWait,
      frameDelayMs,
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function ask(): Promise<string> {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Create a VPC' }) });
    const events = results(await stream.rest());
    expect(streamedText(events)).toBe(`${BEFORE.join('')}\n${QUESTION}`);
    return events[0].contextId;
  }

  it('message/send: the connection is cut right after iac-code took the answer; the template and the last words are shown', async () => {
    const contextId = await ask();
    fake.injectFault({ name: 'kill-mid-stream', after: 1 }, { method: 'SendStreamingMessage' });
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', contextId }) });
    expect(answer.body.result.status.state).toBe('completed');
    expect(sentText(answer.body.result)).toBe(REST);
    expect(fake.rpcRequests('GetTask').length).toBeGreaterThan(0);
  });

  it('message/stream: the stream ends mid-turn after the file; what was streamed stays, the rest follows on the same stream', async () => {
    const contextId = await ask();
    fake.injectFault({ name: 'end-mid-stream', after: 3 }, { method: 'SendStreamingMessage' });
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Allow once', contextId }) });
    const frames = await stream.rest();
    const events = results(frames);
    expect(frames.every((frame) => frame.json.error === undefined)).toBe(true);
    expect(streamedText(events)).toBe(REST);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('message/stream: cut in the middle of the last words; each word is shown once', async () => {
    const contextId = await ask();
    fake.injectFault({ name: 'kill-mid-stream', after: 4 }, { method: 'SendStreamingMessage' });
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Allow once', contextId }) });
    expect(streamedText(results(await stream.rest()))).toBe(REST);
  });

  it('the next message finds the conversation where the recovered turn left it', async () => {
    const contextId = await ask();
    fake.injectFault({ name: 'kill-mid-stream', after: 1 }, { method: 'SendStreamingMessage' });
    await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', contextId }) });
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'and a subnet', contextId }) });
    // A new turn, which asks for permission again: it waits for the answer.
    expect(next.body.result.status.state).toBe('input-required');
    expect(sentText(next.body.result)).toBe(`${BEFORE.join('')}\n${QUESTION}`);
  });

  it('the task cannot be read either: the turn fails with the reason, after what was said so far', async () => {
    const contextId = await ask();
    fake.injectFault({ name: 'kill-mid-stream', after: 1 }, { method: 'SendStreamingMessage' });
    // iac-code is out of reach: it can neither be subscribed to again nor read.
    fake.injectFault('http-500', { method: 'SubscribeToTask' });
    fake.injectFault('http-500', { times: 3, method: 'GetTask' });
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', contextId }) });
    expect(answer.body.result.status.state).toBe('failed');
    expect(sentText(answer.body.result)).toBe('Upstream agent is unavailable');
  });
});
