import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FollowEntry } from '../../src/push/follow-journal.js';

/**
 * The entries a restart reads from `<dir>/<name>` (a snapshot, a JSON array) and its journal `<name>l` (a header,
 * then a line per change: an entry set, or `{ key, forget: true }`), each keyed by `keyOf`: read without writing,
 * while a gateway may be appending (a line not ended yet is not read).
 */
export async function keptEntries<E>(dir: string, name: string, keyOf: (entry: E) => string): Promise<E[]> {
  const entries = new Map<string, E>();
  const snapshot = await readFile(join(dir, name), 'utf8').catch(() => '[]');
  for (const entry of JSON.parse(snapshot) as E[]) entries.set(keyOf(entry), entry);
  const journal = await readFile(join(dir, `${name}l`), 'utf8').catch(() => '');
  const ended = journal.slice(0, journal.lastIndexOf('\n') + 1);
  for (const text of ended.split('\n').slice(1).filter(Boolean)) {
    const line = JSON.parse(text) as E & { key?: string; forget?: boolean };
    const key = line.forget ? line.key! : keyOf(line);
    entries.delete(key);
    if (!line.forget) entries.set(key, line);
  }
  return [...entries.values()];
}

/** The follows `<persistence-dir>` keeps (push_follows.json and its journal). */
export const keptFollows = (dir: string): Promise<FollowEntry[]> => keptEntries<FollowEntry>(dir, 'push_follows.json', (entry) => entry.taskId);

/** The push configs `<persistence-dir>` keeps (push_configs.json and its journal), sealed. */
export const keptConfigs = (dir: string): Promise<Array<{ owner: string; taskId: string; sealed: { config: { id?: string } } }>> =>
  keptEntries(dir, 'push_configs.json', (entry) => JSON.stringify([entry.owner, entry.taskId, entry.sealed.config.id]));
