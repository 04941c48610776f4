import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CallContext } from '../core/agent-port.js';
import { tenantField } from '../core/tenants.js';
import type { PushLogger } from './queue/types.js';
import { journaledEntries } from '../journaled-file.js';

/** A task being followed (follow.ts), as kept across a restart. */
export interface FollowEntry {
  taskId: string;
  principal: string;
  /** The tenant the task was created under (absent: the default tenant, as in entries of before tenants were kept). */
  tenant?: string;
  surface?: CallContext['surface'];
  /** When the follow gives up (epoch ms): `push-follow-timeout-ms` after it began. */
  until: number;
  /**
   * The id of the caller's message that began the turn followed, when known (a send's, or the record's last when
   * a config came for a running turn): tells whether the task read at the turn's end is that turn's when the
   * agent left its end unstamped (turn-of-record.ts).
   */
  turnMessageId?: string;
  /**
   * The status (as-found.ts's key) the task waited in when the turn began, which the agent answered the turn with:
   * reads that still show it are of the last turn, not this one's end.
   */
  asFound?: string;
}

/** The entry of a follow that `caller`'s call starts now, in `tenant` (the task's, '' for the default one). */
export function followEntry(
  taskId: string,
  caller: CallContext,
  tenant: string,
  timeoutMs: number,
  turnMessageId?: string,
  asFound?: string,
): FollowEntry {
  return {
    taskId,
    principal: caller.principal,
    ...tenantField(tenant),
    ...(caller.surface ? { surface: caller.surface } : {}),
    until: Date.now() + timeoutMs,
    ...(turnMessageId !== undefined ? { turnMessageId } : {}),
    ...(asFound !== undefined ? { asFound } : {}),
  };
}

/** Where the follows in progress are kept, so that a restarted gateway (or another replica) takes them up again. */
export interface FollowJournal {
  add(entry: FollowEntry): Promise<void>;
  remove(taskId: string): Promise<void>;
  /** The follows to take up when push starts: those kept from before a restart. */
  entries(): Promise<FollowEntry[]>;
  /**
   * A journal shared by replicas (Redis): takes at most `limit` follows of replicas that are gone and
   * makes them this one's. The follower calls it when push starts and then every `claimEveryMs`.
   */
  claimOrphans?(limit: number): Promise<FollowEntry[]>;
  /** A journal shared by replicas: the task ids it holds as this replica's now (another may have claimed some). */
  held?(): Promise<Set<string>>;
  readonly claimEveryMs?: number;
}

/** The file journal: `close()` folds its changes into the snapshot as push stops (the release before reads only that). */
export interface FileFollowJournal extends FollowJournal {
  close(): Promise<void>;
}

/** Follows kept in this process only (tests, embedding without a journal). */
export const inMemoryOnly: FollowJournal = { add: async () => undefined, remove: async () => undefined, entries: async () => [] };

export const FOLLOWS_FILE = 'push_follows.json';
export const FOLLOWS_JOURNAL = 'push_follows.jsonl';

/**
 * The single-node journal: `<persistence-dir>/push_follows.json`, next to the push configs and the queue, and its
 * journal `push_follows.jsonl` (journaled-file.ts): a follow begun or ended appends its line, it does not rewrite
 * every follow in progress. `close()` folds the journal into the snapshot.
 */
export async function createFileFollowJournal(dir: string, logger: PushLogger): Promise<FileFollowJournal> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const kept = new Map<string, FollowEntry>();
  const file = journaledEntries<FollowEntry>({
    snapshotPath: join(dir, FOLLOWS_FILE),
    journalPath: join(dir, FOLLOWS_JOURNAL),
    live: kept,
    // Entries hold no key field (nor did those the release before wrote): a follow is its task's.
    keyOf: (entry) => entry.taskId,
    rejects: true,
    onError: (error: unknown) => logger.error({ err: error }, 'A2A push follows could not be read or saved'),
  });
  for (const entry of (await file.load()) as Array<Partial<FollowEntry> | null>) {
    // A damaged entry is that follow lost, not the others (nor the start).
    if (typeof entry?.taskId === 'string' && typeof entry.principal === 'string' && typeof entry.until === 'number')
      kept.set(entry.taskId, entry as FollowEntry);
    else logger.warn({ taskId: entry?.taskId }, 'A2A push follow could not be restored: its entry is damaged');
  }
  return {
    async add(entry) {
      kept.delete(entry.taskId);
      kept.set(entry.taskId, entry);
      await file.set(entry);
    },
    async remove(taskId) {
      if (kept.delete(taskId)) await file.forget(taskId);
    },
    entries: async () => [...kept.values()],
    close: () => file.compact(),
  };
}
