import { statSync } from 'node:fs';
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fileLines, GroupCommit, isBlank, parseLines, SerialChain } from '../../append-journal.js';
import { removeStaleTemps, writeFileAtomic } from '../../atomic-file.js';
import type { PushJob, PushLogger } from './types.js';

/** What a journal keeps: jobs of a queue, or anything else held under an id of its own. */
export interface Journaled {
  jobId: string;
}

/** One line of the journal. The live set is `enqueue|retry` (latest wins) minus `ack|dead`. */
export type JournalRecord<T extends Journaled = PushJob> =
  { t: 'enqueue'; job: T } | { t: 'retry'; job: T } | { t: 'ack'; jobId: string } | { t: 'dead'; jobId: string };

const JOURNAL = 'journal.jsonl';
const DEAD = 'dead.jsonl';

/** Whether the journal in `dir` may hold something (compacted empty, it is an empty file): read once, at start. */
export function journalMayHoldRecords(dir: string): boolean {
  try {
    return statSync(join(dir, JOURNAL)).size > 0;
  } catch {
    return false;
  }
}

function apply<T extends Journaled>(live: Map<string, T>, record: JournalRecord<T>): void {
  if (record.t === 'enqueue' || record.t === 'retry') live.set(record.job.jobId, record.job);
  else live.delete(record.jobId);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A record `apply` can take, or undefined for a line that is none (torn by a crash mid-write, or damaged). */
function parseLine<T extends Journaled>(line: string): JournalRecord<T> | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(record)) return undefined;
  const { t } = record;
  if (t === 'enqueue' || t === 'retry')
    return isObject(record.job) && typeof record.job.jobId === 'string' ? (record as JournalRecord<T>) : undefined;
  if (t === 'ack' || t === 'dead') return typeof record.jobId === 'string' ? (record as JournalRecord<T>) : undefined;
  return undefined;
}

/**
 * Replays the journal's bytes. Its last line is the last that is not blank; when it is no record, it is the tail a
 * crash tore, even if a newline ends it (and one that is a record counts, newline or not). Any other line that is no
 * record is damage, dropped with the jobs it held: counted, so the start can say so before compaction erases them.
 */
function replay<T extends Journaled>(bytes: Buffer): { live: Map<string, T>; damaged: number; tornTail: boolean } {
  const live = new Map<string, T>();
  const lines = fileLines(bytes).filter((line) => !isBlank(line));
  const { parsed, torn } = parseLines(lines, (line) => parseLine<T>(line.text));
  let damaged = 0;
  for (const record of parsed) {
    if (record) apply(live, record);
    else damaged += 1;
  }
  return { live, damaged, tornTail: torn !== undefined };
}

async function openAppend(path: string): Promise<FileHandle> {
  return open(path, 'a', 0o600);
}

/**
 * An append-only, fsynced record of the queue. Appends issued while a write is in progress are
 * batched into the next write (group commit), so many concurrent enqueues cost one fsync, and
 * each append resolves only once its line is on disk. Every file operation runs on one chain, so
 * compaction never interleaves with an append.
 */
export class Journal<T extends Journaled = PushJob> {
  private readonly chain = new SerialChain();
  private readonly commits = new GroupCommit(this.chain, async (batch) => {
    await this.handle.writeFile(batch.join(''));
    await this.handle.sync();
    this.lines += batch.length;
  });
  /** The state the file describes once the buffer is flushed; compaction writes it out. */
  private readonly live: Map<string, T>;
  private lines: number;

  private constructor(
    private readonly dir: string,
    private handle: FileHandle,
    live: Map<string, T>,
  ) {
    this.live = live;
    this.lines = live.size;
  }

  /**
   * Opens (creating) the journal in `dir`, replays it, and rewrites it compactly (which also drops a torn tail).
   * Damaged lines before the last are told to `logger` once, by their number (a line may hold a webhook's URL or token),
   * and answered (`damaged`), for the queue's metrics.
   */
  static async open<T extends Journaled = PushJob>(
    dir: string,
    logger?: PushLogger,
  ): Promise<{ journal: Journal<T>; pending: T[]; damaged: number }> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, JOURNAL);
    // A compaction a crash cut short left its temp file.
    await removeStaleTemps(path);
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    });
    const { live, damaged, tornTail } = replay<T>(bytes);
    if (damaged > 0) {
      logger?.warn({ file: path, dropped: damaged }, 'A2A push journal had damaged lines: they are dropped, with the deliveries they held');
    }
    if (tornTail) logger?.debug?.({ file: path }, 'A2A push journal ended in a line cut short (a crash mid-write): dropped');
    const journal = new Journal(dir, await openAppend(path), live);
    await journal.compact();
    return { journal, pending: [...live.values()], damaged };
  }

  get liveCount(): number {
    return this.live.size;
  }

  /** Lines in the file that no longer describe a live job dominate: worth a rewrite. */
  shouldCompact(minLines: number): boolean {
    return this.lines >= minLines && this.lines > 2 * this.live.size;
  }

  append(record: JournalRecord<T>): Promise<void> {
    apply(this.live, record);
    return this.commits.add(`${JSON.stringify(record)}\n`);
  }

  /** Writes the job to dead.jsonl (fsynced) before the journal forgets it. */
  async deadLetter(job: T, reason: string): Promise<void> {
    await this.chain.run(async () => {
      const handle = await openAppend(join(this.dir, DEAD));
      try {
        await handle.writeFile(`${JSON.stringify({ job, reason, deadAt: Date.now() })}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    await this.append({ t: 'dead', jobId: job.jobId });
  }

  /**
   * Rewrites the journal as one line per live job: temp file, fsync, rename, fsync the directory.
   * Lines still buffered are appended to the new file afterwards; replaying them again is harmless
   * because every record sets or removes a job by id.
   */
  compact(): Promise<void> {
    return this.chain.run(async () => {
      const path = join(this.dir, JOURNAL);
      const snapshot = [...this.live.values()].map((job) => `${JSON.stringify({ t: 'enqueue', job })}\n`);
      await writeFileAtomic(path, snapshot.join(''), { syncFolder: true });
      await this.handle.close();
      this.handle = await openAppend(path);
      this.lines = snapshot.length;
    });
  }

  async close(): Promise<void> {
    await this.chain.run(() => this.handle.close());
  }
}
