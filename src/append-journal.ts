/**
 * The pieces every append-only journal of the bridge is built of (journaled-file.ts's keyed entries, the local-file
 * push queue's journal): file operations one at a time, lines written in groups, and the reading back of a file a
 * crash may have cut short. What a line says, and what a cut or damaged one costs, stays with each journal.
 */

/**
 * Runs file operations one at a time, in the order asked: an append never interleaves with a compaction that
 * rewrites the same file. A failed operation fails its own caller only; the ones after it run all the same.
 */
export class SerialChain {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.tail.then(operation);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Settles (never rejects) once every operation asked for so far has. */
  get settled(): Promise<unknown> {
    return this.tail;
  }
}

/**
 * Group commit: lines asked for while a write is in progress wait, and go out together in the next write on the
 * chain, so that many callers at once cost one append and one fsync. Each caller's promise is its batch's write:
 * it resolves once the line is on disk, and rejects with the write's error for that batch's callers only.
 */
export class GroupCommit {
  private waiting: string[] = [];
  private next: Promise<void> | undefined;

  /** `write` takes a batch (each line ending in its newline) and resolves once it is on disk. */
  constructor(
    private readonly chain: SerialChain,
    private readonly write: (batch: string[]) => Promise<void>,
  ) {}

  add(line: string): Promise<void> {
    this.waiting.push(line);
    // Taken when the write begins, not when it is asked for: lines added until then join this batch.
    this.next ??= this.chain.run(() => {
      this.next = undefined;
      return this.write(this.waiting.splice(0));
    });
    return this.next;
  }

  /** Lines asked for and not yet handed to a write. */
  get pending(): number {
    return this.waiting.length;
  }
}

/** A line of a journal file: its text (without the newline), where it starts (bytes), and whether a newline ends it. */
export interface FileLine {
  text: string;
  start: number;
  ended: boolean;
}

const NEWLINE = 0x0a;

/**
 * A journal's bytes as lines, empty ones left out. Split on bytes, not text: `start` is where to truncate the file
 * to drop a line. A newline byte is never part of a multi-byte UTF-8 character, so each line decodes as it would
 * within the whole text.
 */
export function fileLines(bytes: Buffer): FileLine[] {
  const lines: FileLine[] = [];
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    if (end > start) lines.push({ text: bytes.subarray(start, end).toString('utf8'), start, ended: newline !== -1 });
    start = end + 1;
  }
  return lines;
}

export const isBlank = (line: FileLine): boolean => line.text.trim() === '';

/**
 * Parses a journal's lines, in order. Each write is fsynced before the next begins, so only the last line can have
 * been cut short by a crash: when `parse` cannot take it, it is the torn tail, dropped (`torn`) for the caller to pass
 * over without a word. Any other line it cannot take stays in `parsed` as undefined: damage (a disk, an edit by
 * hand), for the caller to count, never to quote (a line holds what its callers said: a URL, a token).
 */
export function parseLines<L>(
  lines: readonly FileLine[],
  parse: (line: FileLine) => L | undefined,
): { parsed: (L | undefined)[]; torn: FileLine | undefined } {
  const parsed = lines.map(parse);
  const last = lines.at(-1);
  if (last === undefined || parsed.at(-1) !== undefined) return { parsed, torn: undefined };
  parsed.pop();
  return { parsed, torn: last };
}
