import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { removeStaleTemps, writeFileAtomic } from './atomic-file.js';
import { ConfigError } from './config/config-error.js';

/**
 * A JSON file that holds a whole snapshot, rewritten on each change: writes are coalesced (one in
 * flight, at most one more queued, which takes the snapshot as it is when it runs) and atomic
 * (writeFileAtomic), so a crash leaves the previous snapshot or the new one, never half of one; the temp files
 * such crashes left are removed first (removeStaleTemps), the writes waiting for that.
 */
export function snapshotFile(path: string, snapshot: () => unknown, onError: (error: unknown) => void): { persist(): Promise<void> } {
  let writing: Promise<void> = removeStaleTemps(path);
  let scheduled: Promise<void> | undefined;
  return {
    /** Resolves once a snapshot taken after the caller's change is on disk. */
    persist() {
      if (scheduled) return scheduled;
      const next = writing.then(async () => {
        scheduled = undefined;
        await writeFileAtomic(path, JSON.stringify(snapshot()));
      });
      scheduled = next;
      writing = next.catch(onError);
      return next;
    },
  };
}

/**
 * The entries of a snapshot file; none when there is no file yet (a temp file left by a crash mid-write is
 * not read: the rename never happened, so the previous snapshot stands). A file that is not the JSON array
 * the gateway writes (empty, cut short, overwritten: a restore, a copy or a disk that failed, never a crash
 * of the gateway) is refused with a ConfigError naming it, not its content, and what to do: read as no
 * entries, the next change would overwrite what the operator could still restore.
 */
export async function readSnapshot<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined; // JSON.parse's words quote the text, which may hold task ids and URLs.
  }
  if (Array.isArray(parsed)) return parsed as T[];
  throw new ConfigError(
    `${resolve(path)} (in persistence-dir) is damaged: not the JSON the gateway writes (${text.length === 0 ? 'empty' : 'cut short or overwritten'}); ` +
      'restore it from a backup, or move it aside to start without what it held',
  );
}
