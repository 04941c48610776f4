/**
 * With `upstream.inline-artifacts`, a webhook registered through the 1.0 surface is pushed the template's bytes,
 * as the 1.0 caller's own SendMessage, GetTask and ListTasks show them: it was pushed iac-code's opaque
 * `iac-code-artifact://` URL, which no receiver can open. Without the option, and for a file that fails its
 * checks, the body keeps the URL, as the caller's calls do. The agent is the fake iac-code, the caller the
 * official a2a-js 1.x client, the receiver a real HTTP server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { Receiver, type Received } from './harness.js';

const TEMPLATE = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
const SCRIPT = { before: ['Writing the VPC. '], after: ['Wrote main.tf.'] };
const dirs: string[] = [];
const closing: Array<{ close(): Promise<void> }> = [];
let receiver: Receiver;

const tempDir = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `a2a-bridge-push-inline-${name}-`));
  dirs.push(dir);
  return dir;
};

/** A fake iac-code that writes main.tf into its artifact folder (`written` instead: the file changed after iac-code hashed it). */
async function iacCode(dir: string, written?: string): Promise<FakeIacCode> {
  const artifact = { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir, ...(written ? { written: Buffer.from(written) } : {}) };
  const fake = await startFakeIacCode({ script: { ...SCRIPT, artifact } });
  closing.push(fake);
  return fake;
}

async function gatewayOver(fake: FakeIacCode, artifactDir: string, inline: boolean): Promise<TestGateway> {
  const gateway = await startTestGateway({
    upstream: { url: fake.url, 'artifact-dir': artifactDir, 'inline-artifacts': inline },
    'push-notifications': true,
    'push-allow-private': true,
    'push-events': 'all',
    'persistence-dir': tempDir('state'),
  });
  closing.unshift(gateway);
  return gateway;
}

let good: TestGateway;
let off: TestGateway;
let tampered: TestGateway;
beforeAll(async () => {
  receiver = await new Receiver().up();
  const dir = tempDir('files');
  const fake = await iacCode(dir);
  good = await gatewayOver(fake, dir, true);
  off = await gatewayOver(fake, dir, false);
  const tamperedDir = tempDir('tampered');
  tampered = await gatewayOver(await iacCode(tamperedDir, 'tampered'), tamperedDir, true);
});
afterAll(async () => {
  for (const each of closing) await each.close();
  await receiver?.down();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A 1.0 caller's turn (streamed when `streamed`) with an inline webhook at `path`, once the turn's end was pushed. */
async function turnPushedTo(gateway: TestGateway, path: string, streamed = false): Promise<void> {
  const { client } = await connect(gateway.url, 'JSONRPC');
  const request = {
    ...sendRequest('template: a VPC'),
    configuration: {
      acceptedOutputModes: [],
      historyLength: undefined,
      returnImmediately: false,
      taskPushNotificationConfig: { tenant: '', id: 'hook', taskId: '', url: `${receiver.url}${path}`, token: 'tok', authentication: undefined },
    },
  };
  if (streamed) await collect(client.sendMessageStream(request));
  else asTask(await client.sendMessage(request));
  // The turn's end (its task, or its last status) comes last: wait until it is in.
  await waitUntil(async () => receiver.at(path).some(endsTurn));
}

interface PushedPart {
  raw?: string;
  url?: string;
  filename?: string;
}
type Body = {
  task?: { artifacts?: Array<{ parts: PushedPart[] }>; status: { state: string } };
  artifactUpdate?: { artifact: { parts: PushedPart[] } };
  statusUpdate?: { status: { state: string } };
};

const endsTurn = (entry: Received): boolean => {
  const body = entry.json as Body;
  const state = body.task?.status.state ?? body.statusUpdate?.status.state;
  return state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_COMPLETED';
};

/** The file parts of one pushed body: in its artifact update, or in its task's artifacts. */
function filesIn(entry: Received): PushedPart[] {
  const body = entry.json as Body;
  const artifacts = body.artifactUpdate ? [body.artifactUpdate.artifact] : (body.task?.artifacts ?? []);
  return artifacts.flatMap((artifact) => artifact.parts).filter((part) => part.raw !== undefined || part.url !== undefined);
}

/** Every file part the receiver was pushed at `path`. */
const pushedFiles = (path: string): PushedPart[] => receiver.at(path).flatMap(filesIn);

const shown = (part: PushedPart): string => (part.raw !== undefined ? Buffer.from(part.raw, 'base64').toString('utf8') : `url: ${part.url}`);

/** Every body pushed at `path` that carries a file, by its kind (`task`, `artifactUpdate`). */
const kindsWithFiles = (path: string): string[] => [
  ...new Set(receiver.at(path).flatMap((entry) => (filesIn(entry).length > 0 ? Object.keys(entry.json as object) : []))),
];

describe('a 1.0 webhook of an iac-code task', () => {
  it('with inline-artifacts: is pushed the file bytes, as SendMessage answers its caller', async () => {
    await turnPushedTo(good, '/v1-inline');
    const files = pushedFiles('/v1-inline');
    expect(kindsWithFiles('/v1-inline')).toEqual(['task']);
    expect(files.map(shown)).toEqual(files.map(() => TEMPLATE));
  });

  it('with inline-artifacts, a streamed turn: each artifact update and task pushed carries the bytes', async () => {
    await turnPushedTo(good, '/v1-streamed', true);
    const files = pushedFiles('/v1-streamed');
    expect(kindsWithFiles('/v1-streamed')).toContain('artifactUpdate');
    expect(files.map(shown)).toEqual(files.map(() => TEMPLATE));
  });

  it('without inline-artifacts: is pushed the URL, as its caller is answered', async () => {
    await turnPushedTo(off, '/v1-off', true);
    const files = pushedFiles('/v1-off');
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((part) => part.url?.startsWith('iac-code-artifact://') && part.raw === undefined)).toBe(true);
  });

  it('a file changed since iac-code wrote it: is pushed its URL, as its caller is answered', async () => {
    await turnPushedTo(tampered, '/v1-tampered', true);
    const files = pushedFiles('/v1-tampered');
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((part) => part.url?.startsWith('iac-code-artifact://') && part.raw === undefined)).toBe(true);
  });
});
