/**
 * A Bailian user's 0.2.5 webhook in front of iac-code, with the artifact folder shared, is pushed the template
 * as the user's stream and tasks/get show it, also in the bodies `push-events: all` makes of the gateway's record
 * mid-turn: those were made of iac-code's opaque URL, and showed only the file's one-line description.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import { Receiver } from './harness.js';

const TEMPLATE = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
const SHOWN = `main.tf\n\`\`\`hcl\n${TEMPLATE}\`\`\``;
const DESCRIBED = /main\.tf \(text\/plain, \d+ bytes\)/;
const dirs = ['files', 'state'].map((name) => mkdtempSync(join(tmpdir(), `a2a-bridge-push-025-${name}-`)));
let fake: FakeIacCode;
let gateway: RunningGateway;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await new Receiver().up();
  const artifact = { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir: dirs[0]! };
  fake = await startFakeIacCode({ script: { before: ['Writing the VPC. '], after: ['Wrote main.tf.'], artifact } });
  gateway = await startFacadeGateway({
    upstream: { url: fake.url, 'artifact-dir': dirs[0] },
    'push-notifications': true,
    'push-allow-private': true,
    'push-events': 'all',
    'persistence-dir': dirs[1],
  });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  await receiver?.down();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('push-events all: every body that shows the file shows the template, as the stream did; the last one what tasks/get answers', async () => {
  const configuration = { acceptedOutputModes: ['text/plain'], pushNotificationConfig: { url: `${receiver.url}/all` } };
  const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Create a VPC' }), configuration });
  const events = results(await stream.rest());
  expect(streamedText(events)).toContain(SHOWN);
  const got = await rpc(gateway.url, 'tasks/get', { id: events.at(-1).taskId });
  await waitUntil(async () => JSON.stringify(receiver.at('/all').at(-1)?.json) === JSON.stringify(got.body.result));
  const bodies = receiver.at('/all').map((entry) => sentText(entry.json));
  const showingFile = bodies.filter((text) => text.includes('main.tf\n') || DESCRIBED.test(text));
  expect(showingFile.length).toBeGreaterThan(0);
  for (const text of showingFile) {
    expect(text).not.toMatch(DESCRIBED);
    expect(text).toContain(SHOWN);
  }
});
