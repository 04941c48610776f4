import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * The gateway's own files in `persistence-dir` are written whole or not at all: into a temp file beside
 * the target (same folder, so same file system: the rename or link is atomic), fsynced, then moved into
 * place. The temp name is this write's own, so two writers of one file at once (two gateways sharing a
 * `persistence-dir`, two stores on one folder) never write into one temp file: with a fixed `<file>.tmp`
 * one writer's rename took the file the other was still writing, and the other's rename failed (ENOENT).
 * A crash between the write and the move leaves a `<file>.<pid>.<hex>.tmp` that nothing reads: removeStaleTemps.
 */
export const tempPathFor = (path: string): string => `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

/** Removing a temp file after a failure: the failure is what the caller hears of, not this. */
const removeQuietly = (temp: string): Promise<void> => unlink(temp).catch(() => undefined);

/** Past this age a temp file is no write under way (one takes milliseconds): a crash left it. */
export const STALE_TEMP_MS = 10 * 60_000;

/**
 * Removes the temp files of `path` a crash left between a write and its move (named as tempPathFor names them, and
 * older than `olderThanMs`); for a store opening its file. By age, not by whether the pid in the name still runs:
 * gateways sharing a `persistence-dir` from other hosts (or containers) have pids of their own, and a live writer's
 * temp file is young. Never fails: what it could not remove stays, as it would have.
 */
export async function removeStaleTemps(path: string, olderThanMs = STALE_TEMP_MS): Promise<void> {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  const names = await readdir(folder).catch(() => [] as string[]);
  const temps = names.filter((name) => name.startsWith(prefix) && /^\d+\.[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length)));
  await Promise.all(
    temps.map(async (name) => {
      const temp = join(folder, name);
      const modified = await stat(temp).then(
        (found) => found.mtimeMs,
        () => Date.now(),
      );
      if (Date.now() - modified > olderThanMs) await removeQuietly(temp);
    }),
  );
}

/**
 * Replaces `path` with `data` (mode 0600, fsynced): a reader sees the old file or the new one, never a
 * mix, and a failure leaves the old file and no temp file. `syncFolder` also fsyncs the folder, so the
 * rename itself outlives a power cut (a journal's compaction, whose appends go to the new file next).
 */
export async function writeFileAtomic(path: string, data: string, options: { syncFolder?: boolean } = {}): Promise<void> {
  const temp = tempPathFor(path);
  const handle = await open(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await removeQuietly(temp);
    throw error;
  }
  if (options.syncFolder) {
    const folder = await open(dirname(path), 'r');
    await folder.sync().finally(() => folder.close());
  }
}

/**
 * Creates `path` with `data` (mode 0600, fsynced) only if no file has that name yet, synchronously: the
 * temp file is linked into place (link(2) fails when the name exists, rename would replace it), so two
 * processes creating it at once agree on one content, the first. Returns whether this call created it.
 */
export function createFileOnceSync(path: string, data: string): boolean {
  const temp = tempPathFor(path);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Gone already, or the folder no longer writable: the failure above, if any, is what the caller hears of.
    }
  }
}
