import { describe, expect, it } from 'vitest';
import { fileLines, GroupCommit, parseLines, SerialChain } from '../src/append-journal.js';

/** A promise its test settles by hand: a write held in flight until the test lets it finish. */
function gate(): { promise: Promise<void>; open: () => void; fail: (error: Error) => void } {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { promise, open, fail };
}

/** What has happened to a caller's promise so far. */
function watch(promise: Promise<void>): { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } {
  const seen: { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } = { state: 'pending' };
  promise.then(
    () => (seen.state = 'resolved'),
    (error: unknown) => Object.assign(seen, { state: 'rejected', error }),
  );
  return seen;
}

const turns = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('the pieces of an append-only journal (append-journal.ts)', () => {
  /** A group commit whose writes are held until the test opens them, one gate a write. */
  const heldWrites = () => {
    const writes: { batch: string[]; gate: ReturnType<typeof gate> }[] = [];
    const chain = new SerialChain();
    const commits = new GroupCommit(chain, (batch) => {
      const held = gate();
      writes.push({ batch, gate: held });
      return held.promise;
    });
    return { writes, chain, commits };
  };

  it('sends the lines asked for during a write out together in the next one, each caller told once it is done', async () => {
    const { writes, commits } = heldWrites();
    const first = watch(commits.add('a\n'));
    await turns();
    expect(writes.map((write) => write.batch)).toEqual([['a\n']]);

    const others = ['b\n', 'c\n', 'd\n'].map((line) => watch(commits.add(line)));
    expect(commits.pending).toBe(3);
    await turns();
    // Nothing more is written while the first write is in flight, and no one is told before their write is done.
    expect(writes).toHaveLength(1);
    expect([first, ...others].map((seen) => seen.state)).toEqual(['pending', 'pending', 'pending', 'pending']);

    writes[0]!.gate.open();
    await turns();
    expect(first.state).toBe('resolved');
    expect(writes.map((write) => write.batch)).toEqual([['a\n'], ['b\n', 'c\n', 'd\n']]);
    expect(commits.pending).toBe(0);
    expect(others.map((seen) => seen.state)).toEqual(['pending', 'pending', 'pending']);

    writes[1]!.gate.open();
    await turns();
    expect(others.map((seen) => seen.state)).toEqual(['resolved', 'resolved', 'resolved']);
    expect(writes).toHaveLength(2);
  });

  it("rejects a failed write's callers only, and the writes after it go on", async () => {
    const { writes, chain, commits } = heldWrites();
    const failed = ['a\n', 'b\n'].map((line) => watch(commits.add(line)));
    await turns();
    const later = watch(commits.add('c\n'));
    const disk = new Error('disk full');
    writes[0]!.gate.fail(disk);
    await turns();
    expect(failed).toEqual([
      { state: 'rejected', error: disk },
      { state: 'rejected', error: disk },
    ]);
    expect(later.state).toBe('pending');

    writes[1]!.gate.open();
    await turns();
    expect(later.state).toBe('resolved');
    expect(writes.map((write) => write.batch)).toEqual([['a\n', 'b\n'], ['c\n']]);
    // The chain itself goes on too: an operation asked for after the failure runs.
    await expect(chain.run(async () => 'ran')).resolves.toBe('ran');
  });

  it('runs file operations one at a time in the order asked, a failure not stopping the ones after it', async () => {
    const chain = new SerialChain();
    const order: string[] = [];
    const first = gate();
    const one = chain.run(async () => (await first.promise, order.push('one')));
    const two = chain.run(async () => {
      order.push('two');
      throw new Error('two failed');
    });
    const three = chain.run(async () => order.push('three'));
    await turns();
    expect(order).toEqual([]);
    first.open();
    await expect(one).resolves.toBe(1);
    await expect(two).rejects.toThrow('two failed');
    await expect(three).resolves.toBe(3);
    await chain.settled;
    expect(order).toEqual(['one', 'two', 'three']);
  });

  it('splits bytes into lines with where each starts in bytes and whether a newline ends it', () => {
    const lines = fileLines(Buffer.from('é1\n\n  \n{"b":2}\n{"c"', 'utf8'));
    expect(lines).toEqual([
      { text: 'é1', start: 0, ended: true },
      { text: '  ', start: 5, ended: true },
      { text: '{"b":2}', start: 8, ended: true },
      { text: '{"c"', start: 16, ended: false },
    ]);
    expect(fileLines(Buffer.alloc(0))).toEqual([]);
  });

  it('drops an unparsable last line as a torn tail, and keeps any other as damage in its place', () => {
    const parse = (line: { text: string }): number | undefined => (/^\d+$/.test(line.text) ? Number(line.text) : undefined);
    const torn = parseLines(fileLines(Buffer.from('1\nx\n3\n{"cut', 'utf8')), parse);
    expect(torn.parsed).toEqual([1, undefined, 3]);
    expect(torn.torn).toEqual({ text: '{"cut', start: 6, ended: false });

    const whole = parseLines(fileLines(Buffer.from('1\nx\n3\n', 'utf8')), parse);
    expect(whole).toEqual({ parsed: [1, undefined, 3], torn: undefined });

    expect(parseLines([], parse)).toEqual({ parsed: [], torn: undefined });
  });
});
