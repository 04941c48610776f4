/**
 * A damaged line in the local-file push queue's journal (a failing disk, an edit by hand; not the last line, which a
 * crash may cut short) is a notification dropped at start, never attempted: counted `outcome="permanent"` in
 * a2a_bridge_push_deliveries_total, as the redis-streams queue counts an entry that holds no job, so that
 * A2ABridgePushDeliveriesFailing sees it. Before, it was in the start's warning only, in no metric.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newPushJob } from '../../src/push/queue/types.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value } from '../support/prometheus.js';
import { waitUntil } from '../support/wait-until.js';

let dir: string | undefined;
let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A gateway started on a persistence-dir whose push journal holds `lines`. */
async function startedOn(lines: string[]): Promise<TestGateway> {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-journal-damaged-'));
  await mkdir(path.join(dir, 'push'), { recursive: true });
  await writeFile(path.join(dir, 'push', 'journal.jsonl'), lines.map((line) => `${line}\n`).join(''));
  gateway = await startTestGateway({ 'push-notifications': true, 'persistence-dir': dir });
  return gateway;
}

const job = newPushJob({ eventId: 'e-1', taskId: 't', configId: 'c', owner: '', url: 'https://x.example/', payload: '{}' });
const enqueued = JSON.stringify({ t: 'enqueue', job });
const acked = JSON.stringify({ t: 'ack', jobId: job.jobId });

describe('a2a_bridge_push_deliveries_total for the local-file journal', () => {
  it('counts each damaged line before the last permanent, once, at start', async () => {
    const started = await startedOn([enqueued, '{"t":"enq', 'not json at all', acked]);
    const permanent = async () => value(await scrape(started.url), 'a2a_bridge_push_deliveries_total', { outcome: 'permanent' });
    await waitUntil(async () => (await permanent()) > 0);
    // Counted once: not again at a later scrape.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await permanent()).toBe(2);
    expect(started.log().filter((line) => String(line.msg).startsWith('A2A push journal had damaged lines'))).toEqual([
      expect.objectContaining({ level: 40, dropped: 2 }),
    ]);
  });

  it('a last line cut short by a crash is no damage: counted nowhere', async () => {
    const started = await startedOn([enqueued, acked, '{"t":"ack","jo']);
    // Replayed and compacted (the torn line gone) by the time the file is empty: what it counts is counted by then.
    await waitUntil(async () => (await readFile(path.join(dir!, 'push', 'journal.jsonl'), 'utf8')) === '');
    expect(value(await scrape(started.url), 'a2a_bridge_push_deliveries_total', { outcome: 'permanent' })).toBe(0);
  });
});
