import { createHash } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileLines, GroupCommit, isBlank, parseLines, SerialChain } from './append-journal.js';
import { removeStaleTemps, writeFileAtomic } from './atomic-file.js';
import { ConfigError } from './config/config-error.js';
import { errnoText } from './errno-text.js';
import { readSnapshot } from './snapshot-file.js';

/** An entry kept whole under its key: set again, it replaces the one before. */
export interface KeyedEntry {
  key: string;
}

/**
 * Where an entry's key is: its `key` field, or (`keyOf`) in fields of its own, for entries whose snapshot a release
 * before this journal wrote without a key field: that snapshot is read whole, each entry under the key it gives.
 */
type KeyOption<E> = E extends KeyedEntry ? { keyOf?: (entry: E) => string } : { keyOf: (entry: E) => string };

/** The key of an entry: its `key` field, or what the caller's `keyOf` takes it from; undefined for a damaged entry. */
type KeyTaker<E> = (entry: E) => string | undefined;

const keyTaker =
  <E>(keyOf: ((entry: E) => string) | undefined): KeyTaker<E> =>
  (entry) => {
    try {
      const key = keyOf ? keyOf(entry) : (entry as Partial<KeyedEntry> | null)?.key;
      return typeof key === 'string' ? key : undefined;
    } catch {
      return undefined;
    }
  };

/** A journal line: an entry set (as the snapshot holds it) or its key forgotten. */
type JournalLine<E> = E | { key: string; forget: true };

/**
 * The journal's first line: the snapshot its changes follow, by the digest of the snapshot's bytes. A snapshot
 * rewritten since by anyone but this journal's compaction (a release before, which knows no journal, after a
 * rollback) is not one these changes follow: replayed onto it, a stale line would bring back an entry it forgot or
 * replace a newer one.
 */
interface Header {
  continues: string;
}

const digestOf = (snapshot: string | Buffer): string => createHash('sha256').update(snapshot).digest('base64url');
const headerLine = (digest: string): string => `${JSON.stringify({ continues: digest } satisfies Header)}\n`;

const isForget = (line: unknown): line is { key: string; forget: true } =>
  (line as { forget?: unknown }).forget === true && typeof (line as Partial<KeyedEntry>).key === 'string';
const isHeader = (line: unknown): line is Header => typeof (line as Partial<Header>).continues === 'string';

/** A line's JSON object; undefined for anything else (cut short, damaged). */
function parseLine(text: string): object | undefined {
  try {
    const line = JSON.parse(text) as unknown;
    return typeof line === 'object' && line !== null && !Array.isArray(line) ? line : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Set again, an entry moves last: the order the entries were last set in, as a Map kept in memory holds them.
 * False for a line that is no change (no key to take).
 */
function apply<E>(entries: Map<string, E>, line: object, keyOf: KeyTaker<E>): boolean {
  const key = isForget(line) ? line.key : keyOf(line as E);
  if (key === undefined) return false;
  entries.delete(key);
  if (!isForget(line)) entries.set(key, line as E);
  return true;
}

/**
 * Replays the journal's bytes onto `entries` when its header names `snapshot`, the digest of the snapshot they
 * hold (`follows`: it does). Only its last line may be cut short (a crash mid-append): it goes without a word, and
 * `keep` is where the file should end for the next append to start a line of its own. Any other line that is no
 * change is damage (a disk, an edit by hand): skipped and counted, never quoted (a line holds what callers said).
 */
function replay<E>(
  entries: Map<string, E>,
  bytes: Buffer,
  snapshot: string,
  keyOf: KeyTaker<E>,
): { changes: number; damaged: number; keep: number; follows: boolean } {
  const all = fileLines(bytes);
  // A blank line is no change, but the last line stays even blank: what follows the last newline is where a crash cut.
  const kept = all.filter((line, index) => index === all.length - 1 || !isBlank(line));
  // A last line never ended (no newline after it) was never acknowledged: its change did not happen.
  const { parsed: lines, torn } = parseLines(kept, (line) => (line.ended ? parseLine(line.text) : undefined));
  const keep = torn ? torn.start : bytes.length;
  const [header, ...changes] = lines;
  // No header: damaged, as no journal this module writes lacks one; another snapshot's: stale, left out unsaid.
  if (!header || !isHeader(header)) return { changes: 0, damaged: lines.length, keep, follows: false };
  if (header.continues !== snapshot) return { changes: 0, damaged: 0, keep, follows: false };
  let damaged = 0;
  for (const line of changes) {
    if (!line || isHeader(line) || !apply(entries, line, keyOf)) damaged++;
  }
  return { changes: changes.length, damaged, keep, follows: true };
}

const unreadableJournal = (path: string, error: unknown): ConfigError =>
  new ConfigError(
    `${resolve(path)} (in persistence-dir) cannot be read (${errnoText(error)}); ` +
      "make it readable by the gateway's user, or move it aside to start without the changes it holds",
  );

export interface JournaledEntries<E> {
  /** The entries as the processes before left them: the snapshot, then the journal replayed in order, oldest first. */
  load(): Promise<E[]>;
  /** Resolves once the entry's line is on disk (or its write failed, told to `onError`, and thrown with `rejects`). */
  set(entry: E): Promise<void>;
  forget(key: string): Promise<void>;
  /** Folds the journal into the snapshot, if it holds anything: a release that reads only the snapshot reads it all. */
  compact(): Promise<void>;
}

/**
 * Entries by key in `snapshotPath` (a JSON array of them, snapshot-file.ts's format, rewritten whole only by a
 * compaction) and `journalPath` beside it (one JSON line per change, appended and fsynced): a change costs the
 * line of its entry, not a rewrite of all of them. Every file operation runs on one chain, in the order asked, so
 * the lines asked for within one write go out together in the next one (one append, one fsync). The journal is
 * folded into the snapshot once it holds more lines than max(`minLines`, twice the live entries): the rewrite's
 * cost is paid back by the lines before it. The journal's first line names the snapshot its changes follow (Header):
 * it is replayed onto that snapshot only. Entries are never `{ forget: true }` (that line forgets a key).
 */
export function journaledEntries<E extends object>(
  options: {
    snapshotPath: string;
    journalPath: string;
    /** The entries held now, oldest first: what a compaction writes. */
    live: { readonly size: number; values(): IterableIterator<E> };
    onError: (error: unknown) => void;
    minLines?: number;
    /**
     * Whether the caller hears failures, not only `onError`: `set` and `forget` reject with their write's error (for
     * a caller that undoes a change not on disk), `load` with a snapshot or journal that cannot be read (for one that
     * refuses to start rather than overwrite what an operator could restore). Without it they resolve either way.
     */
    rejects?: boolean;
  } & KeyOption<E>,
): JournaledEntries<E> {
  const { snapshotPath, journalPath, live, onError } = options;
  const minLines = options.minLines ?? 1_000;
  const givenKeyOf = (options as { keyOf?: (entry: E) => string }).keyOf;
  const keyOf = keyTaker<E>(givenKeyOf);
  const dir = dirname(snapshotPath);
  const chain = new SerialChain();
  let compacting: Promise<void> | undefined;
  /** Lines in the journal file after its header; a compaction empties it. */
  let lines = 0;
  /** A line that could not be written: the journal no longer tells the entries, until a compaction. */
  let lost = false;
  /** The digest of the snapshot on disk, and whether the journal's header names it (if not, the next write starts it anew). */
  let snapshot = digestOf('');
  let follows = false;

  const withJournal = async (use: (handle: Awaited<ReturnType<typeof open>>) => Promise<void>): Promise<void> => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const handle = await open(journalPath, 'a', 0o600);
    try {
      await use(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
  };

  /** Appends `text` to the journal, started anew (its header naming the snapshot) when it follows no longer. */
  const write = async (text: string): Promise<void> => {
    await withJournal(async (handle) => {
      if (!follows) await handle.truncate(0);
      await handle.writeFile(`${follows ? '' : headerLine(snapshot)}${text}`, 'utf8');
    });
    follows = true;
  };

  /**
   * The snapshot first, then the journal emptied, its header naming the new snapshot. A crash between the two leaves
   * the new snapshot and the old journal, whose header names the snapshot before: not replayed onto the new one,
   * which holds every change it does. Were it replayed, it would give the same: each line sets or forgets one key
   * whole, and the snapshot was taken after every change the old journal holds. That is why the changes asked for
   * before the snapshot was taken and written after the journal was emptied are harmless: the snapshot holds them,
   * and replayed they change nothing.
   */
  const compactNow = (): Promise<void> =>
    chain.run(async () => {
      compacting = undefined;
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const text = JSON.stringify([...live.values()]);
        // The folder fsynced too: the new snapshot outlives a power cut before the journal is emptied.
        await writeFileAtomic(snapshotPath, text, { syncFolder: true });
        [snapshot, follows] = [digestOf(text), false];
        await write('');
        [lines, lost] = [0, false];
      } catch (error) {
        onError(error);
      }
    });

  const commits = new GroupCommit(chain, async (batch) => {
    let failure: { error: unknown } | undefined;
    try {
      const before = follows ? lines : 0;
      await write(batch.join(''));
      lines = before + batch.length;
    } catch (error) {
      [lost, failure] = [true, { error }];
      onError(error);
    }
    // Callers told of a failure undo their changes first: the compaction waits for the next change (or compact()),
    // as taken now it could write the very changes they undo.
    if (failure && options.rejects) throw failure.error;
    if (lost || lines > Math.max(minLines, 2 * live.size)) compacting ??= compactNow();
  });

  const append = (line: JournalLine<E>): Promise<void> => commits.add(`${JSON.stringify(line)}\n`);

  return {
    load: () =>
      chain.run(async () => {
        // A compaction a crash cut short left its temp file.
        await removeStaleTemps(snapshotPath);
        const entries = new Map<string, E>();
        const read = await readSnapshot<E>(snapshotPath).catch((error: unknown) => {
          if (options.rejects) throw error;
          return (onError(error), [] as E[]);
        });
        read.forEach((entry, index) => {
          // An entry without a key (damaged): with `keyOf`, given one of its own (no key holds a NUL) for the caller
          // to judge; else left out.
          const key = keyOf(entry) ?? (givenKeyOf ? `\u0000${index}` : undefined);
          if (key !== undefined) entries.set(key, entry);
        });
        // Read again for its digest (readSnapshot tells what is wrong with it): what the journal's header must name.
        snapshot = digestOf(await readFile(snapshotPath).catch(() => ''));
        const bytes = await readFile(journalPath).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return Buffer.alloc(0);
          // Read as empty, the journal would be started anew by the first change: what it held, lost for good.
          if (options.rejects) throw unreadableJournal(journalPath, error);
          return (onError(error), Buffer.alloc(0));
        });
        const replayed = replay(entries, bytes, snapshot, keyOf);
        [lines, follows] = [replayed.changes, replayed.follows];
        if (replayed.damaged > 0) onError(new Error(`${journalPath}: ${replayed.damaged} damaged line(s) skipped, with the changes they held`));
        // The next append starts a line of its own, not the end of one a crash cut short.
        if (follows && replayed.keep < bytes.length) await withJournal((handle) => handle.truncate(replayed.keep)).catch(onError);
        return [...entries.values()];
      }),
    set: (entry) => append(entry),
    forget: (key) => append({ key, forget: true }),
    compact: async () => {
      await chain.settled;
      if (lines > 0 || lost || commits.pending > 0) await (compacting ??= compactNow());
    },
  };
}
