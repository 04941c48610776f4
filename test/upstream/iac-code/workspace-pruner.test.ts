/**
 * The workspace pruner (`upstream.workspace-prune`) on real folders, aged with `utimes`: what it removes
 * (conversation folders idle for `idle-after-ms`), what it never touches (other names, links, anything
 * outside the root, folders with recent files or a turn), and how it takes a missing root and a second
 * pruner on the same volume. Folders it may not remove: workspace-pruner-permissions.test.ts.
 */
import { lstat, mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIVITY_FOLDER, createWorkspaceActivity } from '../../../src/upstream/iac-code/workspace-activity.js';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { waitUntil } from '../../support/wait-until.js';
import { DAY, age, conversation, exists, fill, outside, pruner, root, useFreshFolders } from './pruner-fixtures.js';

useFreshFolders();

describe('the workspace pruner', () => {
  it('removes a conversation folder nothing happened in for idle-after-ms, counts it and its bytes, and says so in one line', async () => {
    const idle = await conversation('old-conversation', 8, { 'main.tf': '12345', '.terraform/state/x.json': '1234567890' });
    const recent = await conversation('new-conversation', 1);
    const sweeper = pruner();
    expect(await sweeper.sweep()).toEqual({ removed: 1, bytes: 15, kept: 1, failed: 0 });
    expect(await exists(idle)).toBe(false);
    expect(await exists(recent)).toBe(true);
    expect(sweeper.logs.filter((line) => line.level === 'info')).toEqual([
      { level: 'info', fields: { root, removed: 1, bytes: 15 }, message: 'idle workspace folders removed' },
    ]);
    // Nothing left behind: no renamed-away folder, and the root itself stays.
    expect(await readdir(root)).toEqual([path.basename(recent)]);
    expect(sweeper.sweeps).toHaveLength(1);
    // A sweep that removes nothing logs no summary line.
    await sweeper.sweep();
    expect(sweeper.logs.filter((line) => line.level === 'info')).toHaveLength(1);
  });

  it('keeps an old folder with one recent file deep inside, and one whose own time is recent', async () => {
    const deep = await conversation('deep-write', 30, { 'a/b/c/d/old.tf': 'x', 'a/b/other.tf': 'y' });
    await writeFile(path.join(deep, 'a/b/c/d/new.tf'), 'just written');
    // Writing a file touches its folder; the folders above it stay 30 days old.
    await age(path.join(deep, 'a/b/c/d/old.tf'), 30);
    await utimes(path.join(deep, 'a/b/c/d'), new Date(Date.now() - 30 * DAY), new Date(Date.now() - 30 * DAY));
    const touched = await conversation('entry-removed', 30);
    await utimes(touched, new Date(), new Date());
    const result = await pruner().sweep();
    expect(result).toMatchObject({ removed: 0, kept: 2 });
    expect(await exists(path.join(deep, 'a/b/c/d/new.tf'))).toBe(true);
    expect(await exists(touched)).toBe(true);
  });

  it('never touches another name, a file named like a folder, a link named like one, nor the root', async () => {
    const others = ['ctx-short', `CTX-${'A'.repeat(32)}`, `ctx-${'g'.repeat(32)}`, `ctx-${'a'.repeat(32)}-copy`, 'notes', '.hidden'];
    for (const name of others) await fill(path.join(root, name), { 'file.txt': 'x' });
    const plainFile = path.join(root, `ctx-${'b'.repeat(32)}`);
    await writeFile(plainFile, 'not a folder');
    // A link named like a conversation folder, to an old folder outside the root.
    await fill(outside, { 'precious.txt': 'keep me' });
    const link = path.join(root, `ctx-${'c'.repeat(32)}`);
    await symlink(outside, link);
    await age(root, 100);
    await age(outside, 100);
    expect(await pruner().sweep()).toMatchObject({ removed: 0, failed: 0 });
    expect((await readdir(root)).sort()).toEqual([...others, path.basename(plainFile), path.basename(link)].sort());
    expect(await readFile(path.join(outside, 'precious.txt'), 'utf8')).toBe('keep me');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    // With nothing in it, the root is still not the pruner's.
    await rm(root, { recursive: true });
    await mkdir(root);
    await age(root, 100);
    await pruner().sweep();
    expect(await exists(root)).toBe(true);
  });

  it('removes a folder with a link to something outside the root, not what the link points to, and never reads a recent target as activity', async () => {
    await fill(outside, { 'precious.txt': 'keep me', 'sub/also.txt': 'and me' });
    const folder = await conversation('with-links', 9);
    await symlink(outside, path.join(folder, 'to-outside'));
    await symlink(path.join(outside, 'precious.txt'), path.join(folder, 'to-file'));
    await age(folder, 9);
    // The targets are fresh: a link is judged by its own time, never followed.
    await utimes(path.join(outside, 'precious.txt'), new Date(), new Date());
    expect(await pruner().sweep()).toMatchObject({ removed: 1, failed: 0 });
    expect(await exists(folder)).toBe(false);
    expect(await readFile(path.join(outside, 'precious.txt'), 'utf8')).toBe('keep me');
    expect(await readFile(path.join(outside, 'sub/also.txt'), 'utf8')).toBe('and me');
  });

  it('takes a root that is not there yet: nothing to do, one warning until it appears', async () => {
    await rm(root, { recursive: true });
    const sweeper = pruner();
    expect(await sweeper.sweep()).toEqual({ removed: 0, bytes: 0, kept: 0, failed: 0 });
    await sweeper.sweep();
    expect(sweeper.warnings()).toHaveLength(1);
    expect(sweeper.warnings()[0]!.message).toMatch(/workspace root not found/);
    await mkdir(root);
    await conversation('later', 8);
    expect(await sweeper.sweep()).toMatchObject({ removed: 1 });
  });

  it('two pruners sweeping one volume at once (two replicas) remove every idle folder once, and neither fails', async () => {
    const folders = [];
    for (let n = 0; n < 25; n++) folders.push(await conversation(`shared-${n}`, 10, { 'main.tf': 'x', 'modules/a/b.tf': 'y' }));
    const [first, second] = [pruner(), pruner()];
    const [a, b] = await Promise.all([first.sweep(), second.sweep()]);
    expect(a.removed + b.removed).toBe(25);
    expect(a.failed + b.failed).toBe(0);
    expect([...first.warnings(), ...second.warnings()]).toEqual([]);
    expect(await readdir(root)).toEqual([]);
  });

  it('keeps an idle folder whose conversation a turn just picked up again, on any replica that shares the volume, and one this process runs a turn in', async () => {
    const resumed = await conversation('resumed', 20);
    const running = await conversation('long-turn', 20);
    // Replica A starts a turn in `resumed`: iac-code has not written anything yet.
    const replicaA = createWorkspaceActivity(root);
    const end = await replicaA.begin(resumed);
    end();
    expect(await exists(path.join(root, ACTIVITY_FOLDER, path.basename(resumed)))).toBe(true);
    // This replica runs a turn in `running` whose note another hand aged (a turn longer than idle-after-ms).
    const ours = createWorkspaceActivity(root);
    const endRunning = await ours.begin(running);
    await age(path.join(root, ACTIVITY_FOLDER, path.basename(running)), 20);
    // Replica B's pruner sees both folders idle by their own times.
    expect(await pruner({ activity: ours }).sweep()).toMatchObject({ removed: 0, kept: 2 });
    endRunning();
    expect(await pruner({ activity: ours }).sweep()).toMatchObject({ removed: 1, kept: 1 });
    expect(await exists(running)).toBe(false);
    // Its note goes with it; the note of the turn in `resumed` stays while it is recent.
    expect(await readdir(path.join(root, ACTIVITY_FOLDER))).toEqual([path.basename(resumed)]);
  });

  it('puts a folder back when a turn began in it between the last look and the rename', async () => {
    const folder = await conversation('just-in-time', 10, { 'main.tf': 'keep me' });
    let looks = 0;
    // Idle at the first look; at the look after the rename, a turn has begun.
    const activity = { busy: () => ++looks > 1 };
    expect(await pruner({ activity }).sweep()).toEqual({ removed: 0, bytes: 0, kept: 1, failed: 0 });
    expect(looks).toBe(2);
    expect(await readFile(path.join(folder, 'main.tf'), 'utf8')).toBe('keep me');
    expect(await readdir(root)).toEqual([path.basename(folder)]);
  });

  it('forgets the note of a folder that is gone once the note is idle too', async () => {
    const activity = createWorkspaceActivity(root);
    const folder = workspaceOf(root, 'never-made');
    (await activity.begin(folder))();
    const notes = path.join(root, ACTIVITY_FOLDER);
    await pruner().sweep();
    expect(await readdir(notes)).toEqual([path.basename(folder)]);
    await age(path.join(notes, path.basename(folder)), 8);
    await pruner().sweep();
    expect(await readdir(notes)).toEqual([]);
  });

  it('notes nothing and never makes the root when the root is not there', async () => {
    await rm(root, { recursive: true });
    const end = await createWorkspaceActivity(root).begin(workspaceOf(root, 'c'));
    end();
    expect(await exists(root)).toBe(false);
  });

  it('finishes a removal a stopped sweep left behind', async () => {
    const leftover = path.join(root, `.a2a-bridge-pruning-ctx-${'d'.repeat(32)}-${'0'.repeat(16)}`);
    await fill(leftover, { 'main.tf': 'x' });
    // Fresh: it was already renamed away, so its age does not matter.
    await pruner().sweep();
    expect(await exists(leftover)).toBe(false);
  });

  it('keeps a tree beyond the walk bounds and reports it in one warning per sweep, and removes the rest', async () => {
    const wide = await conversation('wide', 9, { 'a.tf': '1', 'b.tf': '2', 'c.tf': '3' });
    const deep = await conversation('deep', 9, { 'a/b/c/d.tf': '1' });
    const shallow = pruner({ maxDepth: 2 });
    expect(await shallow.sweep()).toMatchObject({ removed: 1, failed: 1 });
    expect(await exists(wide)).toBe(false);
    expect(await exists(deep)).toBe(true);
    expect(shallow.warnings()).toHaveLength(1);
    expect(shallow.warnings()[0]!.fields).toEqual({ root, failed: 1, first: { folder: path.basename(deep), problem: 'deeper than 2 folders' } });
    const narrow = pruner({ maxEntries: 2 });
    expect(await narrow.sweep()).toMatchObject({ removed: 0, failed: 1 });
    expect(narrow.warnings()[0]!.fields).toMatchObject({ first: { problem: 'more than 2 entries' } });
    expect(await pruner().sweep()).toMatchObject({ removed: 1, failed: 0 });
  });

  it('sweeps on its own once started, and stops cleanly', async () => {
    const folder = await conversation('timed', 8);
    const sweeper = pruner({ everyMs: 20 });
    sweeper.start();
    await waitUntil(async () => !(await exists(folder)));
    await sweeper.stop();
    const sweeps = sweeper.sweeps.length;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(sweeper.sweeps).toHaveLength(sweeps);
  });
});
