/**
 * With `upstream.inline-artifacts`, ListTasks (includeArtifacts) shows a 1.0 caller the template's bytes as
 * SendMessage, the stream and GetTask do, on every binding (the official a2a-js 1.x client): it gave iac-code's
 * opaque `iac-code-artifact://` URL, which no caller can open. A file that fails its checks keeps its URL there,
 * as it does in GetTask.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Part } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArtifactUrl } from '../../../src/upstream/iac-code/artifacts.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, connect, listRequest, sendRequest } from '../../support/sdk-v1-client.js';
import { connectGrpc } from '../grpc/grpc-client.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-list-inline-'));
const TEMPLATE = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({
    script: { before: ['Writing the VPC. '], after: ['Wrote main.tf.'], artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir } },
  });
  gateway = await startTestGateway({ upstream: { url: fake.url, 'artifact-dir': dir, 'inline-artifacts': true }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

const BINDINGS: Record<string, () => Promise<Client>> = {
  JSONRPC: async () => (await connect(gateway.url, 'JSONRPC')).client,
  'HTTP+JSON': async () => (await connect(gateway.url, 'HTTP+JSON')).client,
  GRPC: () => connectGrpc(gateway.url),
};

/** A file part's bytes, or what else it holds. */
const contentOf = (part: Part | undefined): string =>
  part?.content?.$case === 'raw' ? Buffer.from(part.content.value).toString('utf8') : `${part?.content?.$case}: ${String(part?.content?.value)}`;

async function listedFile(client: Client, contextId: string): Promise<string[]> {
  const listed = await client.listTasks(listRequest({ contextId, includeArtifacts: true }));
  return listed.tasks.map((task) => contentOf(task.artifacts[0]?.parts[0]));
}

describe.each(Object.keys(BINDINGS))('over %s', (binding) => {
  it('ListTasks shows the template bytes, as GetTask does', async () => {
    const client = await BINDINGS[binding]!();
    const sent = asTask(await client.sendMessage(sendRequest('template: a VPC')));
    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(contentOf(got.artifacts[0]?.parts[0])).toBe(TEMPLATE);
    expect(await listedFile(client, sent.contextId)).toEqual([TEMPLATE]);
  });
});

it('a file changed since iac-code wrote it keeps its URL in ListTasks, as in GetTask', async () => {
  const { client } = await connect(gateway.url, 'JSONRPC');
  const sent = asTask(await client.sendMessage(sendRequest('template: a VPC')));
  const listed = await client.listTasks(listRequest({ contextId: sent.contextId, includeArtifacts: true }));
  expect(contentOf(listed.tasks[0]?.artifacts[0]?.parts[0])).toBe(TEMPLATE);
  const stored = fake.tasks.get(sent.id) as { artifacts?: Array<{ parts?: Array<{ url?: string }> }> } | undefined;
  const parsed = parseArtifactUrl(stored?.artifacts?.[0]?.parts?.[0]?.url ?? '');
  if ('refused' in parsed) throw new Error(`the fake's artifact URL: ${parsed.refused}`);
  writeFileSync(join(dir, parsed.artifactId, parsed.filename), 'tampered');

  const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
  expect(contentOf(got.artifacts[0]?.parts[0])).toMatch(/^url: iac-code-artifact:\/\//);
  expect(await listedFile(client, sent.contextId)).toEqual([contentOf(got.artifacts[0]?.parts[0])]);
});
