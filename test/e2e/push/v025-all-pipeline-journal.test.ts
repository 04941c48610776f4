/**
 * With `push-events: all`, a 0.2.5 webhook's bodies are rendered by the facade (pushed-task.ts). The changes before
 * the turn's end are made of the registry's copy so that the agent is not asked once per streamed piece; yet each
 * such change of an iac-code pipeline turn resolved after the turn ended was read as the ended turn, which reads
 * iac-code's whole journal (/iac-code/pipeline/state): 8 reads for one turn, none without the webhook.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, startFacadeGateway, userMessage } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { Receiver } from './harness.js';

let fake: FakeIacCode;
let gateway: RunningGateway;
let receiver: Receiver;
let dir: string;
beforeAll(async () => {
  fake = await startFakeIacCode({ runMode: 'pipeline', script: { before: [], after: [], artifact: { filename: 'template.yaml' } } });
  receiver = await new Receiver().up();
  dir = await mkdtemp(join(tmpdir(), 'push-all-journal-'));
  gateway = await startFacadeGateway({
    upstream: { url: fake.url },
    'push-notifications': true,
    'push-allow-private': true,
    'push-events': 'all',
    'persistence-dir': dir,
  });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
});

const journalReads = () => fake.requests.filter((request) => request.path === '/iac-code/pipeline/state').length;

async function streamTurn(pushTo?: string): Promise<void> {
  const configuration = pushTo ? { acceptedOutputModes: ['text/plain'], pushNotificationConfig: { url: `${receiver.url}${pushTo}` } } : undefined;
  const stream = await openStream(`${gateway.url}/`, 'message/stream', {
    message: userMessage({ text: '帮我部署一个网站' }),
    ...(configuration ? { configuration } : {}),
  });
  await stream.rest();
}

it('push-events: all costs a pipeline turn at most one more journal read than the same turn without a webhook', async () => {
  const before = journalReads();
  await streamTurn();
  const unpushed = journalReads() - before;

  const pushedBefore = journalReads();
  await streamTurn('/all');
  await receiver.waitFor('/all', 1);
  // Whatever the webhook's chain still resolves.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const pushed = journalReads() - pushedBefore;
  // Was: one read per change resolved after the turn ended (8 here, none without the webhook), each of iac-code's whole journal.
  expect(pushed - unpushed).toBeLessThanOrEqual(1);
});
