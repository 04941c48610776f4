/**
 * iac-code's interactive permission prompt (its default) in front of a Bailian user: the question is
 * shown as text, and the user's answer in words reaches iac-code as the data part it requires, so the
 * turn goes on and the template is shown. A reply that picks no option is asked again without reaching
 * iac-code. The fake iac-code follows the captured prompt, answer and resume frames, and, as newer servers
 * do it (read in iac-code's source), a prompting stream that ends after the prompt.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { PERMISSION_DENIED_AFTER, PERMISSION_PROMPT, PERMISSION_PROMPT_ZH } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const BEFORE = ['Drafting ', 'main.tf.'];
const AFTER = ['Wrote main.tf ✓'];
const TEMPLATE = 'resource "alicloud_vpc" "main" {}\n';
const QUESTION = `${PERMISSION_PROMPT}\nReply "Allow once" or "Deny".`;

// `open`: the prompting stream stays open, as captured; `parked`: it ends after the prompt, as newer servers do.
describe.each(['open', 'parked'] as const)('facade → iac-code asking for permission (the prompt waits %s)', (permissionWait) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-permission-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  /** Serves /photo.jpg (a JPEG) and /never.jpg (answers nothing until it closes), for images a user sends with an answer. */
  let photos: Server;
  let photosUrl: string;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: { before: BEFORE, after: AFTER, artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir }, permission: true },
      permissionWait,
    });
    photos = createServer((request, response) => {
      if (request.url === '/photo.jpg') response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2]));
    });
    await new Promise<void>((resolve) => photos.listen(0, '127.0.0.1', resolve));
    photosUrl = `http://127.0.0.1:${(photos.address() as AddressInfo).port}`;
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir }, bailian: { 'image-urls': { 'allow-private': true } } });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
    photos.closeAllConnections();
    photos.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function ask(text = 'Create a VPC', question = QUESTION): Promise<{ contextId: string; taskId: string }> {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text }) });
    const events = results(await stream.rest());
    expect(streamedText(events)).toBe(`${BEFORE.join('')}\n${question}`);
    // The prompt waits for its user's answer: Bailian is told so, and routes the next message back here.
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    return { contextId: events[0].contextId, taskId: events[0].id };
  }

  it('the question is shown; "Allow once" resumes the turn and the template is shown', async () => {
    const { contextId } = await ask();
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', contextId }) });
    expect(sentText(answer.body.result)).toBe(`main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\`\n${AFTER.join('')}`);
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
    expect(sent.params.message.parts).toEqual([
      {
        data: {
          schemaVersion: 1,
          kind: 'permission',
          requestTaskId: sent.params.message.taskId,
          inputId: expect.stringMatching(/^permission-/),
          toolUseId: 'tu-1',
          decision: 'allow_once',
        },
        mediaType: 'application/json',
      },
    ]);
  });

  it('the stream broke before the prompt: the prompt is read from the task and shown in the same turn', async () => {
    fake.injectFault({ name: 'kill-mid-stream', after: 8 }, { method: 'SendStreamingMessage' });
    const broken = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }) });
    expect(sentText(broken.body.result)).toBe(`${BEFORE.join('')}\n${QUESTION}`);
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', contextId: broken.body.result.contextId }) });
    expect(sentText(answer.body.result)).toBe(`main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\`\n${AFTER.join('')}`);
  });

  it('a prompt the user never read (the stream broke before it, the task could not be read) is shown by the next message, not granted by it', async () => {
    fake.injectFault({ name: 'kill-mid-stream', after: 8 }, { method: 'SendStreamingMessage' });
    // Neither way of reading the turn on works: the subscription is refused, the task cannot be read.
    fake.injectFault('http-500', { method: 'SubscribeToTask' });
    fake.injectFault('http-500', { times: 3, method: 'GetTask' });
    const broken = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }) });
    const { contextId } = broken.body.result;
    expect(sentText(broken.body.result)).not.toContain(PERMISSION_PROMPT);
    const streamed = fake.rpcRequests('SendStreamingMessage').length;
    // "ok" would be a yes to the prompt: it is the turn as iac-code left it that the user reads, the prompt last.
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'ok', contextId }) });
    expect(sentText(next.body.result)).toBe(`${BEFORE.join('')}\n${QUESTION}`);
    expect(fake.rpcRequests('SendStreamingMessage')).toHaveLength(streamed);
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', contextId }) });
    expect(sentText(answer.body.result)).toBe(`main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\`\n${AFTER.join('')}`);
  });

  it.runIf(permissionWait === 'parked')('iac-code restarted and lost the task that asked: the answer starts a new task, not an error', async () => {
    const { contextId } = await ask();
    fake.restart();
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', contextId }) });
    expect(answer.body.error).toBeUndefined();
    expect(sentText(answer.body.result)).toContain(BEFORE.join(''));
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
    expect(sent.params.message.taskId).toBeUndefined();
    expect(sent.params.message).toMatchObject({ contextId, parts: [{ text: 'Allow once' }] });
  });

  it("an answer that names the task alone (no contextId) still reaches iac-code with the task's context", async () => {
    const { contextId, taskId } = await ask();
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Allow once', taskId }) });
    expect(sentText(answer.body.result)).toContain(TEMPLATE);
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
    expect(sent.params.message).toMatchObject({ contextId, parts: [{ data: { kind: 'permission', decision: 'allow_once' } }] });
  });

  it('"拒绝" (deny) over message/stream: the tool does not run and the agent says so', async () => {
    const { contextId } = await ask();
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: '拒绝', contextId }) });
    const events = results(await stream.rest());
    expect(streamedText(events)).toBe(PERMISSION_DENIED_AFTER.join(''));
    expect(events.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
  });

  it('a reply that picks no option is asked again, without reaching iac-code; a later "yes" still works', async () => {
    const { contextId } = await ask();
    const before = fake.rpcRequests('SendStreamingMessage').length;
    const again = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'what does it do?', contextId }) });
    expect(sentText(again.body.result)).toBe(`An answer is needed first. ${QUESTION}`);
    // Asked again, the prompt still waits.
    expect(again.body.result.status.state).toBe('input-required');
    expect(fake.rpcRequests('SendStreamingMessage').length).toBe(before);
    const yes = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'yes', contextId }) });
    expect(sentText(yes.body.result)).toContain(TEMPLATE);
  });

  it("a user writing Chinese: iac-code is asked to write in Chinese, its prompt is shown with the facade's Chinese around it, asked again in Chinese, and answered with the facade's name", async () => {
    const question = `${PERMISSION_PROMPT_ZH}\n请回复“仅允许一次”或“拒绝”。`;
    const { contextId } = await ask('帮我创建一个专有网络', question);
    expect((fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message.metadata.iac_code).toEqual({ preferredLanguage: 'zh' });
    const before = fake.rpcRequests('SendStreamingMessage').length;
    // "what?" says no language: the conversation's stays.
    const again = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'what?', contextId }) });
    expect(sentText(again.body.result)).toBe(`请先回答这个问题。${question}`);
    expect(fake.rpcRequests('SendStreamingMessage').length).toBe(before);
    const allowed = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '允许一次', contextId }) });
    expect(sentText(allowed.body.result)).toContain(TEMPLATE);
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
    expect(sent.params.message.parts).toMatchObject([{ data: { kind: 'permission', decision: 'allow_once' } }]);
  });

  it('a Chinese user consents as people do (确定, 嗯, 好的，执行吧, 好的👌, the label copied with its quotes): the tool runs', async () => {
    const question = `${PERMISSION_PROMPT_ZH}\n请回复“仅允许一次”或“拒绝”。`;
    for (const consent of ['确定', '继续', '嗯', '执行吧', '好的，执行吧', '可以，请执行', '好的👌', '“仅允许一次”']) {
      const { contextId } = await ask('帮我创建一个专有网络', question);
      const allowed = await rpc(gateway.url, 'message/send', { message: userMessage({ text: consent, contextId }) });
      expect(sentText(allowed.body.result), consent).toContain(TEMPLATE);
      const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
      expect(sent.params.message.parts, consent).toMatchObject([{ data: { kind: 'permission', decision: 'allow_once' } }]);
    }
  });

  it('a Chinese refusal never reads as consent: 不确定 is asked again, 别执行, 不要继续 and 算了吧 deny', async () => {
    const question = `${PERMISSION_PROMPT_ZH}\n请回复“仅允许一次”或“拒绝”。`;
    const { contextId } = await ask('帮我创建一个专有网络', question);
    const before = fake.rpcRequests('SendStreamingMessage').length;
    const unsure = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '不确定', contextId }) });
    expect(sentText(unsure.body.result)).toBe(`请先回答这个问题。${question}`);
    expect(fake.rpcRequests('SendStreamingMessage').length).toBe(before);
    for (const refusal of ['别执行', '不要继续', '算了吧']) {
      const { contextId: asked } = await ask('帮我创建一个专有网络', question);
      const denied = await rpc(gateway.url, 'message/send', { message: userMessage({ text: refusal, contextId: asked }) });
      expect(sentText(denied.body.result), refusal).toBe(PERMISSION_DENIED_AFTER.join(''));
      const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
      expect(sent.params.message.parts, refusal).toMatchObject([{ data: { kind: 'permission', decision: 'deny' } }]);
    }
  });

  it('an answer sent with a URL image reaches iac-code as the data part alone; a re-prompt does not wait for its image', async () => {
    const { contextId } = await ask();
    const withImage = (text: string, path: string) =>
      userMessage({ text, contextId, metadata: { images: [{ type: 'url', value: `${photosUrl}${path}` }] } });
    const before = fake.rpcRequests('SendStreamingMessage').length;
    const started = Date.now();
    const again = await rpc(gateway.url, 'message/send', { message: withImage('what does it do?', '/never.jpg') });
    expect(sentText(again.body.result)).toBe(`An answer is needed first. ${QUESTION}`);
    // The image fetch would hold the answer for its whole timeout (10 s).
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fake.rpcRequests('SendStreamingMessage').length).toBe(before);

    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: withImage('Allow once', '/photo.jpg') });
    expect(streamedText(results(await stream.rest()))).toContain(AFTER.join(''));
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
    expect(sent.params.message.parts).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ kind: 'permission', decision: 'allow_once' }) }),
    ]);
  });
});
