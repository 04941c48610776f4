/**
 * `upstream.workspace-prune` in the gateway as `serve` runs it, in front of the fake iac-code: a Bailian
 * conversation whose folder sat idle past `idle-after-ms` loses the folder to the gateway's own sweep,
 * and its next turn still goes on in the same folder (iac-code makes it again; the fake, which binds a
 * context to its first folder as the real one does, never touches the disk, so the test writes what
 * iac-code would) and is answered with what the agent said.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { lstat, mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACTIVITY_FOLDER } from '../../../src/upstream/iac-code/workspace-activity.js';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { WRONG_WORKSPACE } from '../../support/fake-iac-code-turn-settings.js';
import type { FakeIacCode } from '../../support/fake-iac-code.js';
import { fakeIacCodeBehindGateway, openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';
import { scrape, value } from '../../support/prometheus.js';
import { waitUntil } from '../../support/wait-until.js';

const REPLY = 'Hello world.';
const DAY = 24 * 3_600_000;
const base = mkdtempSync(path.join(tmpdir(), 'a2a-bridge-prune-e2e-'));
const ROOT = path.join(base, 'workspaces');
mkdirSync(ROOT);

afterAll(() => rmSync(base, { recursive: true, force: true }));

const exists = (file: string) =>
  lstat(file).then(
    () => true,
    () => false,
  );

/** Sets `target` (and, `below`, everything below it) `days` back. */
async function age(target: string, days: number, below = true): Promise<void> {
  const when = new Date(Date.now() - days * DAY);
  if (below && (await lstat(target)).isDirectory()) for (const name of await readdir(target)) await age(path.join(target, name), days);
  await utimes(target, when, when);
}

/** The folder each turn of `contextId` named, in the order the agent received them. */
const foldersOf = (fake: FakeIacCode, contextId: string) =>
  fake
    .rpcRequests()
    .filter((request) => request.rpcMethod === 'SendMessage' || request.rpcMethod === 'SendStreamingMessage')
    .map((request) => (request.body as any).params.message)
    .filter((message) => message.contextId === contextId)
    .map((message) => message.metadata?.iac_code?.cwd);

describe('upstream.workspace-prune: an idle conversation folder is removed, and the conversation goes on', () => {
  // The shortest bound the config takes (an hour) and a sweep every second: the test ages the files instead of waiting.
  const running = fakeIacCodeBehindGateway({ 'workspace-root': ROOT, 'workspace-prune': { 'idle-after-ms': 3_600_000, 'every-ms': 1_000 } });

  it('a Bailian conversation idle past idle-after-ms loses its folder, and its next turn is answered in the same folder', async () => {
    const contextId = 'bailian-pruned-conversation';
    const folder = workspaceOf(ROOT, contextId);
    const note = path.join(ROOT, ACTIVITY_FOLDER, path.basename(folder));

    const first = await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId }) });
    expect(sentText(first.body.result)).toContain(REPLY);
    // The turn's start was noted before it went on, so no sweep takes the folder while iac-code has yet to write.
    expect(await exists(note)).toBe(true);
    // What iac-code wrote in the turn; then eight days pass without a word.
    await mkdir(path.join(folder, 'modules'), { recursive: true });
    await writeFile(path.join(folder, 'main.tf'), 'resource "alicloud_vpc" "main" {}');
    await writeFile(path.join(folder, 'modules', 'vswitch.tf'), 'resource "alicloud_vswitch" "a" {}');
    // Another conversation, as old but for a file written just now (never aged): the same sweep leaves it.
    const active = workspaceOf(ROOT, 'bailian-active-conversation');
    await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId: 'bailian-active-conversation' }) });
    await mkdir(path.join(active, 'old'), { recursive: true });
    await writeFile(path.join(active, 'old', 'main.tf'), 'x');
    await writeFile(path.join(active, 'old', 'variables.tf'), 'just written');
    for (const aged of ['old/main.tf', 'old', '.']) await age(path.join(active, aged), 8, false);
    await age(path.join(ROOT, ACTIVITY_FOLDER, path.basename(active)), 8);
    await age(folder, 8);
    await age(note, 8);

    // Counted once the sweep is through: the folder is gone, nothing of it is left in the root, the active one stays.
    await waitUntil(async () => value(await scrape(running.gateway.url), 'a2a_bridge_workspaces_pruned_total') === 1);
    expect(await exists(folder)).toBe(false);
    expect((await readdir(ROOT)).filter((name) => name !== ACTIVITY_FOLDER)).toEqual([path.basename(active)]);
    expect(await exists(path.join(active, 'old', 'main.tf'))).toBe(true);
    const samples = await scrape(running.gateway.url);
    expect(value(samples, 'a2a_bridge_workspace_pruned_bytes_total')).toBeGreaterThan(0);
    expect(value(samples, 'a2a_bridge_workspace_prune_failures_total')).toBe(0);

    // The user comes back: the turn names the same folder, and the agent's answer reaches them.
    const stream = await openStream(`${running.gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'and a vswitch', contextId }),
    });
    const events = results(await stream.rest());
    expect(streamedText(events)).toContain(REPLY);
    expect(streamedText(events)).not.toContain(WRONG_WORKSPACE);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(JSON.stringify(events)).not.toContain(ROOT);
    expect(foldersOf(running.fake, contextId)).toEqual([folder, folder]);
    // And this turn's start is noted again.
    expect(Date.now() - (await lstat(note)).mtimeMs).toBeLessThan(DAY);
  });
});
