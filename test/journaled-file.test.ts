import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../src/config/config-error.js';
import { journaledEntries } from '../src/journaled-file.js';
import { tempDirs } from './support/temp-dirs.js';

interface Entry {
  key: string;
  value: number;
}

describe('entries kept as a snapshot and a journal of changes (journaled-file.ts)', () => {
  const tempDir = tempDirs('a2a-bridge-journaled-');
  const files = async () => {
    const dir = await tempDir();
    return { snapshotPath: join(dir, 'entries.json'), journalPath: join(dir, 'entries.jsonl') };
  };
  /** A store as a caller keeps one: its live entries in a Map, each change journaled. */
  const store = (paths: { snapshotPath: string; journalPath: string }, minLines?: number) => {
    const live = new Map<string, Entry>();
    const errors: unknown[] = [];
    const file = journaledEntries<Entry>({ ...paths, live, onError: (error) => void errors.push(error), ...(minLines ? { minLines } : {}) });
    const set = (key: string, value: number) => (live.delete(key), live.set(key, { key, value }), file.set({ key, value }));
    const forget = (key: string) => (live.delete(key), file.forget(key));
    return { live, errors, file, set, forget };
  };
  /** The journal's lines of changes, after its header (the snapshot they follow). */
  const lines = async (path: string) => {
    const [header, ...changes] = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
    expect(header).toMatch(/^\{"continues":/);
    return changes;
  };

  it('the changes asked for within one tick go out in one append, each resolving once it is written', async () => {
    const paths = await files();
    const { file, set, forget } = store(paths);
    await file.load();
    // One write for them all (one open, one fsync): the changes share its promise. (Not counted through a mock of
    // node:fs/promises: the shared test process imports this module before such a mock could take.)
    const written = [set('a', 1), set('b', 2), forget('a'), set('c', 3)];
    expect(new Set(written).size).toBe(1);
    await Promise.all(written);
    expect(await lines(paths.journalPath)).toHaveLength(4);
    expect(await store(paths).file.load()).toEqual([
      { key: 'b', value: 2 },
      { key: 'c', value: 3 },
    ]);
  });

  it('past max(minLines, twice the live entries) the journal is folded into the snapshot; below, the snapshot is not written', async () => {
    const paths = await files();
    const { file, set } = store(paths, 10);
    await file.load();
    for (let n = 0; n < 10; n++) await set(`k${n % 3}`, n);
    await expect(stat(paths.snapshotPath)).rejects.toThrow(/ENOENT/);
    await set('k0', 10);
    await vi.waitFor(async () => expect(await lines(paths.journalPath)).toHaveLength(0));
    expect(JSON.parse(await readFile(paths.snapshotPath, 'utf8'))).toEqual([
      { key: 'k1', value: 7 },
      { key: 'k2', value: 8 },
      { key: 'k0', value: 10 },
    ]);
  });

  it('a last line never ended (a crash before its newline) is not read, and the file is cut back to the lines before it', async () => {
    const paths = await files();
    const before = store(paths);
    await before.file.load();
    await before.set('a', 1);
    await appendFile(paths.journalPath, JSON.stringify({ key: 'b', value: 2 }));
    const { file, set, errors } = store(paths);
    expect(await file.load()).toEqual([{ key: 'a', value: 1 }]);
    await set('c', 3);
    expect(await lines(paths.journalPath)).toEqual([JSON.stringify({ key: 'a', value: 1 }), JSON.stringify({ key: 'c', value: 3 })]);
    expect(errors).toEqual([]);
  });

  it('a journal without its header is damage: told, not replayed, and started anew by the next change', async () => {
    const paths = await files();
    await writeFile(paths.journalPath, `${JSON.stringify({ key: 'a', value: 1 })}\n`);
    const { file, set, errors } = store(paths);
    expect(await file.load()).toEqual([]);
    expect(String(errors[0])).toMatch(/entries\.jsonl: 1 damaged line/);
    await set('b', 2);
    expect(await lines(paths.journalPath)).toEqual([JSON.stringify({ key: 'b', value: 2 })]);
  });

  it('compact() writes the snapshot and empties the journal only when the journal holds something', async () => {
    const paths = await files();
    const { file, set } = store(paths);
    await file.load();
    await file.compact();
    await expect(stat(paths.snapshotPath)).rejects.toThrow(/ENOENT/);
    await set('a', 1);
    await file.compact();
    expect(JSON.parse(await readFile(paths.snapshotPath, 'utf8'))).toEqual([{ key: 'a', value: 1 }]);
    expect(await lines(paths.journalPath)).toEqual([]);
  });

  it('entries keyed by `keyOf` (no key field): a snapshot written without keys is read whole, a damaged entry under a key of its own', async () => {
    const paths = await files();
    interface Unkeyed {
      owner: string;
      id: string;
    }
    await writeFile(paths.snapshotPath, JSON.stringify([{ owner: 'a', id: '1' }, { owner: 'a', id: '2' }, null, { owner: 'b', id: '1' }, 7]));
    const live = new Map<string, Unkeyed>();
    const keyOf = (entry: Unkeyed) => JSON.stringify([entry.owner, entry.id]);
    const file = journaledEntries<Unkeyed>({ ...paths, live, keyOf, onError: () => undefined });
    expect(await file.load()).toEqual([{ owner: 'a', id: '1' }, { owner: 'a', id: '2' }, null, { owner: 'b', id: '1' }, 7]);
    await Promise.all([file.set({ owner: 'c', id: '1' }), file.forget(keyOf({ owner: 'a', id: '2' })), file.set({ owner: 'a', id: '1' })]);
    // The lines are the entries as they are, a forget names the key.
    expect(await lines(paths.journalPath)).toEqual([
      JSON.stringify({ owner: 'c', id: '1' }),
      JSON.stringify({ key: keyOf({ owner: 'a', id: '2' }), forget: true }),
      JSON.stringify({ owner: 'a', id: '1' }),
    ]);
    const again = journaledEntries<Unkeyed>({ ...paths, live, keyOf, onError: () => undefined });
    expect(await again.load()).toEqual([null, { owner: 'b', id: '1' }, 7, { owner: 'c', id: '1' }, { owner: 'a', id: '1' }]);
  });

  it('with `rejects`, a change whose line could not be written rejects (told to onError too); without, it resolves', async () => {
    const paths = await files();
    // A folder where the journal goes: opening it to append fails.
    await mkdir(paths.journalPath);
    const told = store(paths);
    await told.file.load();
    await expect(told.set('a', 1)).resolves.toBeUndefined();
    // The compaction its failure called for, done (it fails too) before the folder goes.
    await told.file.compact();
    const errors: unknown[] = [];
    const live = new Map<string, Entry>();
    const others = await files();
    const rejecting = journaledEntries<Entry>({ ...others, live, rejects: true, onError: (error) => void errors.push(error) });
    await rejecting.load();
    await mkdir(others.journalPath);
    await expect(rejecting.set({ key: 'a', value: 1 })).rejects.toThrow(/EISDIR/);
    await expect(rejecting.forget('a')).rejects.toThrow(/EISDIR/);
    expect(errors.map(String)).toEqual([expect.stringMatching(/EISDIR/), expect.stringMatching(/EISDIR/)]);
  });

  it('a journal that cannot be read: with `rejects`, load refuses naming it (started anew, it would lose its changes); without, told and read as empty', async () => {
    const paths = await files();
    await writeFile(paths.snapshotPath, JSON.stringify([{ key: 'a', value: 1 }]));
    await mkdir(paths.journalPath);
    const errors: unknown[] = [];
    const rejecting = journaledEntries<Entry>({ ...paths, live: new Map(), rejects: true, onError: (error) => void errors.push(error) });
    const refusal = await rejecting.load().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConfigError);
    expect(String((refusal as Error).message)).toBe(
      `${paths.journalPath} (in persistence-dir) cannot be read (EISDIR: illegal operation on a directory); ` +
        "make it readable by the gateway's user, or move it aside to start without the changes it holds",
    );
    expect(errors).toEqual([]);
    const told = store(paths);
    expect(await told.file.load()).toEqual([{ key: 'a', value: 1 }]);
    expect(told.errors.map(String)).toEqual([expect.stringMatching(/EISDIR/)]);
  });

  it('with `rejects`, the compaction a failed line calls for waits for the caller’s undoing: it never writes the change that failed', async () => {
    const paths = await files();
    const live = new Map<string, Entry>();
    const file = journaledEntries<Entry>({ ...paths, live, rejects: true, onError: () => undefined });
    await file.load();
    await mkdir(paths.journalPath);
    live.set('a', { key: 'a', value: 1 });
    await expect(file.set({ key: 'a', value: 1 })).rejects.toThrow(/EISDIR/);
    // The caller undoes it after a while of its own (a store restores the config it replaced first).
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(stat(paths.snapshotPath)).rejects.toThrow(/ENOENT/);
    live.delete('a');
    await rm(paths.journalPath, { recursive: true });
    await file.compact();
    expect(JSON.parse(await readFile(paths.snapshotPath, 'utf8'))).toEqual([]);
  });
});
