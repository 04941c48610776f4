/**
 * A Bailian user in front of iac-code (the fake iac-code replays its captured event shapes): the
 * whole reply in both modes, though iac-code's `assistantFinal` repeats only the text after the last
 * tool call, and the generated template itself, read from the artifact folder iac-code shares with
 * the gateway. A tampered file, a path escape and an oversized file give the one-line description,
 * never their bytes. With `upstream.inline-artifacts`, 1.0 clients (a2a-js 1.x) get the bytes too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import type { TurnScript } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { collect, connect, sendRequest, type Payload } from '../../support/sdk-v1-client.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const BEFORE = ['You said: Create a VPC -> ', 'drafting a ROS 模板 and main.tf.'];
const AFTER = ['Wrote main.tf ✓'];
const TEMPLATE = 'resource "alicloud_vpc" "main" {\n  vpc_name   = "demo"\n  cidr_block = "172.16.0.0/12"\n}\n';
const LINE = (bytes: number) => `main.tf (text/plain, ${bytes} bytes)`;

const folders: string[] = [];
const folder = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-artifacts-'));
  folders.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const script = (artifact: TurnScript['artifact']): TurnScript => ({ before: BEFORE, after: AFTER, artifact });
const reply = (file: string) => `${BEFORE.join('')}\n${file}\n${AFTER.join('')}`;

async function bothModes(gateway: RunningGateway): Promise<{ streamed: string; sent: string; frames: string }> {
  const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Create a VPC' }) });
  const frames = await stream.rest();
  const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }) });
  expect(sent.body.result.status.state).toBe('completed');
  return { streamed: streamedText(results(frames)), sent: sentText(sent.body.result), frames: frames.map((f) => f.data).join('\n') + sent.text };
}

describe('facade → iac-code with the artifact folder shared', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  afterEach(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('the whole reply and the template itself, the same in message/send and message/stream', async () => {
    const dir = folder();
    fake = await startFakeIacCode({ script: script({ filename: 'main.tf', content: Buffer.from(TEMPLATE), dir }) });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
    const { streamed, sent } = await bothModes(gateway);
    const expected = reply(`main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\``);
    expect(streamed).toBe(expected);
    expect(sent).toBe(expected);
    expect(streamed.split('Wrote main.tf ✓').length - 1).toBe(1);
  });

  it('without the folder: the whole reply, the template as its one-line description', async () => {
    fake = await startFakeIacCode({ script: script({ filename: 'main.tf', content: Buffer.from(TEMPLATE), dir: folder() }) });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    const { streamed, sent } = await bothModes(gateway);
    expect(streamed).toBe(reply(LINE(Buffer.byteLength(TEMPLATE))));
    expect(sent).toBe(streamed);
  });

  const refused: Array<[string, () => { artifact: TurnScript['artifact']; dir: string; extra?: Record<string, unknown> }, string]> = [
    [
      'a tampered file (its sha256 does not match)',
      () => {
        const dir = folder();
        return {
          artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), written: Buffer.from(TEMPLATE.replace('demo', 'evil')), dir },
          dir,
        };
      },
      LINE(Buffer.byteLength(TEMPLATE)),
    ],
    [
      'a path escape (..%2F in the URL)',
      () => {
        const dir = folder();
        return { artifact: { filename: '../main.tf', content: Buffer.from(TEMPLATE), dir }, dir };
      },
      `../main.tf (text/plain, ${Buffer.byteLength(TEMPLATE)} bytes)`,
    ],
    [
      'a file over bailian.inline-max-bytes',
      () => {
        const dir = folder();
        return { artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir }, dir, extra: { 'inline-max-bytes': 16 } };
      },
      LINE(Buffer.byteLength(TEMPLATE)),
    ],
  ];
  for (const [name, setup, line] of refused) {
    it(`${name}: the line form, never the bytes`, async () => {
      const { artifact, dir, extra } = setup();
      fake = await startFakeIacCode({ script: script(artifact) });
      gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir }, bailian: { ...extra } });
      const { streamed, sent, frames } = await bothModes(gateway);
      expect(streamed).toBe(reply(line));
      expect(sent).toBe(streamed);
      expect(frames).not.toContain('alicloud_vpc');
      expect(frames).not.toContain(Buffer.from(TEMPLATE).toString('base64').slice(0, 20));
    });
  }
});

describe('1.0 clients with upstream.inline-artifacts', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  let dir: string;
  beforeAll(async () => {
    dir = folder();
    fake = await startFakeIacCode({ script: script({ filename: 'main.tf', content: Buffer.from(TEMPLATE), dir }) });
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await gateway?.close();
  });

  const fileOf = (payloads: Payload[]) =>
    payloads
      .flatMap((payload) => (payload.$case === 'artifactUpdate' ? (payload.value.artifact?.parts ?? []) : []))
      .find((part) => part.filename === 'main.tf');

  it('on: the a2a-js 1.x client receives the template as raw bytes', async () => {
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir, 'inline-artifacts': true } });
    const { client } = await connect(gateway.url, 'JSONRPC');
    const part = fileOf(await collect(client.sendMessageStream(sendRequest('Create a VPC'))));
    expect(part?.content?.$case).toBe('raw');
    expect(part?.content?.$case === 'raw' ? Buffer.from(part.content.value).toString() : '').toBe(TEMPLATE);
  });

  it("off (default): the 1.0 client gets iac-code's own URL", async () => {
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
    const { client } = await connect(gateway.url, 'HTTP+JSON');
    const part = fileOf(await collect(client.sendMessageStream(sendRequest('Create a VPC'))));
    expect(part?.content).toMatchObject({ $case: 'url', value: expect.stringMatching(/^iac-code-artifact:\/\//) });
  });
});

describe('the embedded demo agent writes a template the way iac-code does', () => {
  it('"template: …": the whole reply and main.tf itself, in both modes, with no configuration', async () => {
    const dir = folder();
    const gateway = await startFacadeGateway({ 'persistence-dir': dir });
    try {
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'template: shop vpc' }) });
      const streamed = streamedText(results(await stream.rest()));
      const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'template: shop vpc' }) });
      expect(streamed).toMatch(/^Echo \(turn 1\): template: shop vpc\nmain\.tf\n```hcl\n# Generated by the a2a-bridge demo agent for: shop vpc\n/);
      expect(streamed).toContain('vpc_name   = "shop-vpc"');
      expect(streamed.endsWith('```\nWrote main.tf ✓')).toBe(true);
      expect(streamed.split('Wrote main.tf ✓').length - 1).toBe(1);
      expect(sentText(sent.body.result)).toBe(streamed);
    } finally {
      await gateway.close();
    }
  });
});
