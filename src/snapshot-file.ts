import { open, readFile, rename } from 'node:fs/promises';

/**
 * A JSON file that holds a whole snapshot, rewritten on each change: writes are coalesced (one in
 * flight, at most one more queued, which takes the snapshot as it is when it runs) and atomic (temp
 * file, fsync, rename), so a crash leaves the previous snapshot or the new one, never half of one.
 */
export function snapshotFile(path: string, snapshot: () => unknown, onError: (error: unknown) => void): { persist(): Promise<void> } {
  let writing: Promise<void> = Promise.resolve();
  let scheduled: Promise<void> | undefined;
  return {
    /** Resolves once a snapshot taken after the caller's change is on disk. */
    persist() {
      if (scheduled) return scheduled;
      const next = writing.then(async () => {
        scheduled = undefined;
        const text = JSON.stringify(snapshot());
        const temp = `${path}.tmp`;
        const handle = await open(temp, 'w', 0o600);
        try {
          await handle.writeFile(text, 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, path);
      });
      scheduled = next;
      writing = next.catch(onError);
      return next;
    },
  };
}

/** The entries of a snapshot file; none when there is no file yet. */
export async function readSnapshot<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? (parsed as T[]) : [];
}
