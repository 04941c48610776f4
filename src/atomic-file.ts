import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The gateway's own files in `persistence-dir` are written whole or not at all: into a temp file beside
 * the target (same folder, so same file system: the rename or link is atomic), fsynced, then moved into
 * place. The temp name is this write's own, so two writers of one file at once (two gateways sharing a
 * `persistence-dir`, two stores on one folder) never write into one temp file: with a fixed `<file>.tmp`
 * one writer's rename took the file the other was still writing, and the other's rename failed (ENOENT).
 * A crash between the write and the move leaves a `<file>.<pid>.<hex>.tmp` that nothing reads.
 */
const tempPathFor = (path: string): string => `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

/** Removing a temp file after a failure: the failure is what the caller hears of, not this. */
const removeQuietly = (temp: string): Promise<void> => unlink(temp).catch(() => undefined);

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
