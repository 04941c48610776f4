/**
 * The lock that keeps a second gateway off a `persistence-dir` in use (persistence-lock.ts), on real folders
 * and real processes: the holders a test names are processes it started (alive, or gone), this one, or a
 * host name no process here has.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { holdPersistenceDir, LOCK_FILE, LOCK_TIMING, lockPersistenceDir } from '../../src/start/persistence-lock.js';
import { capturedLog } from '../support/captured-log.js';
import { killChildren } from '../support/kill-children.js';

const here = dirname(fileURLToPath(import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SINCE = '2026-01-01T00:00:00.000Z';

let root: string;
let made = 0;
const children: ChildProcess[] = [];
const releases: Array<() => Promise<void>> = [];

beforeAll(async () => {
  // The real path: the lock names the folder as the file system does.
  root = await realpath(await mkdtemp(join(tmpdir(), 'a2a-bridge-lock-')));
});
afterEach(async () => {
  for (const release of releases.splice(0)) await release();
});
afterAll(async () => {
  await killChildren(children);
  await rm(root, { recursive: true, force: true });
});

const freshDir = (): string => join(root, `state-${made++}`);
const lockOf = (dir: string): string => join(dir, LOCK_FILE);
const readLock = async (dir: string) => JSON.parse(await readFile(lockOf(dir), 'utf8')) as Record<string, unknown>;

/** A lock another gateway left in `dir`, last renewed `ageMs` ago. */
async function leftLock(dir: string, holder: { pid: number; host: string }, ageMs = 0): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(lockOf(dir), JSON.stringify({ ...holder, since: SINCE, token: 'theirs' }));
  const renewed = new Date(Date.now() - ageMs);
  await utimes(lockOf(dir), renewed, renewed);
}

async function hold(dir: string, log = capturedLog(), timing = LOCK_TIMING): Promise<() => Promise<void>> {
  const release = await lockPersistenceDir(dir, log.logger, timing);
  releases.push(release);
  return release;
}

/** A process that runs until the file's end (or is killed). */
function liveProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

async function goneProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

const refusal = (dir: string, holder: string) =>
  `persistence-dir ${dir} is in use by another gateway (${holder}): give each gateway its own persistence-dir (replicas share their state through store: redis)`;

describe('lockPersistenceDir', () => {
  it('makes a folder that is not there yet and holds it: the lock names this process and host', async () => {
    const dir = join(freshDir(), 'deeper');
    await hold(dir);
    expect(await readLock(dir)).toMatchObject({ pid: process.pid, host: hostname() });
  });

  it('refuses a folder a live process on this host holds, naming the folder, the holder and what to do; the lock stays its own', async () => {
    const dir = freshDir();
    const { pid } = liveProcess();
    await leftLock(dir, { pid: pid!, host: hostname() });
    await expect(hold(dir)).rejects.toMatchObject({ name: 'ConfigError', message: refusal(dir, `pid ${pid} on host ${hostname()}, since ${SINCE}`) });
    expect(await readLock(dir)).toMatchObject({ pid, token: 'theirs' });
  });

  it('waits a moment for a holder on this host that is ending (killed, not torn down yet), then takes over', async () => {
    const dir = freshDir();
    const ending = liveProcess();
    await leftLock(dir, { pid: ending.pid!, host: hostname() });
    const taking = hold(dir);
    setTimeout(() => ending.kill('SIGKILL'), 200);
    await taking;
    expect(await readLock(dir)).toMatchObject({ pid: process.pid, host: hostname() });
  });

  it('takes over the lock of a process on this host that is gone, and says so', async () => {
    const dir = freshDir();
    const pid = await goneProcess();
    await leftLock(dir, { pid, host: hostname() });
    const log = capturedLog();
    await hold(dir, log);
    expect(await readLock(dir)).toMatchObject({ pid: process.pid, host: hostname() });
    expect(log.messages).toEqual([
      `persistence-dir ${dir}: took over the lock of a gateway that is gone (pid ${pid} on host ${hostname()}, since ${SINCE}; its process is gone)`,
    ]);
  });

  it("takes over a lock naming this process's pid that this process does not hold (a container restarted, pid 1 again)", async () => {
    const dir = freshDir();
    await leftLock(dir, { pid: process.pid, host: hostname() });
    await hold(dir);
    expect(await readLock(dir)).toMatchObject({ pid: process.pid, host: hostname() });
    expect((await readLock(dir)).token).not.toBe('theirs');
  });

  it('refuses a folder held from another host whose lock is renewed, and takes over one not renewed for longer than staleAfterMs', async () => {
    const [renewed, stale] = [freshDir(), freshDir()];
    const elsewhere = { pid: process.pid, host: 'gateway-elsewhere.example' };
    await leftLock(renewed, elsewhere, LOCK_TIMING.heartbeatMs);
    await leftLock(stale, elsewhere, LOCK_TIMING.staleAfterMs + 5_000);
    await expect(hold(renewed)).rejects.toMatchObject({
      message: refusal(renewed, `pid ${process.pid} on host gateway-elsewhere.example, since ${SINCE}`),
    });
    const log = capturedLog();
    await hold(stale, log);
    expect(await readLock(stale)).toMatchObject({ pid: process.pid, host: hostname() });
    expect(log.messages).toEqual([expect.stringMatching(/took over the lock .* on host gateway-elsewhere\.example.*; not renewed for 3\d s\)$/)]);
  });

  it('renews the lock every heartbeat while held', async () => {
    const dir = freshDir();
    await hold(dir, capturedLog(), { ...LOCK_TIMING, heartbeatMs: 50 });
    const long = new Date(Date.now() - 60_000);
    await utimes(lockOf(dir), long, long);
    await expect.poll(async () => Date.now() - (await stat(lockOf(dir))).mtimeMs).toBeLessThan(5_000);
  });

  it('is removed by the last release: holds in one process share the lock, and a process may hold it again after', async () => {
    const dir = freshDir();
    const first = await hold(dir);
    const { token } = await readLock(dir);
    const log = capturedLog();
    const second = await hold(dir, log);
    // Shared, not taken over as a lock from before a restart that gave this process the same pid.
    expect([(await readLock(dir)).token, log.messages]).toEqual([token, []]);
    await first();
    expect(await readLock(dir)).toMatchObject({ token });
    await second();
    await expect(stat(lockOf(dir))).rejects.toMatchObject({ code: 'ENOENT' });
    await hold(dir);
    expect((await readLock(dir)).token).not.toBe(token);
  });
});

describe('two copies of the module in one process', () => {
  it("are one holder: the second shares the first's hold, not taking it over as a lock from before a restart", async () => {
    // A query makes a module of its own: what a bundle loaded beside the sources, or a fresh module graph, is.
    const specifier = '../../src/start/persistence-lock.js?copy';
    const copy = (await import(specifier)) as typeof import('../../src/start/persistence-lock.js');
    expect(copy.lockPersistenceDir).not.toBe(lockPersistenceDir);
    const dir = freshDir();
    await hold(dir);
    const { token } = await readLock(dir);
    const log = capturedLog();
    releases.push(await copy.lockPersistenceDir(dir, log.logger));
    expect([(await readLock(dir)).token, log.messages]).toEqual([token, []]);
  });
});

describe('holdPersistenceDir: the start', () => {
  it('holds nothing when the gateway keeps no files there, and only warns of a folder where no lock can be made', async () => {
    const unused = freshDir();
    const redisOnly = defaultConfig({ 'persistence-dir': unused, store: 'redis', 'redis-url': 'redis://127.0.0.1:6379' });
    expect(await holdPersistenceDir(redisOnly, capturedLog().logger)).toBeUndefined();
    await expect(stat(unused)).rejects.toMatchObject({ code: 'ENOENT' });

    // The facade's cut-turn notes alone: they fail as they did (logged), the gateway serves on.
    const file = join(root, 'a-file');
    await writeFile(file, '');
    const log = capturedLog();
    expect(await holdPersistenceDir(defaultConfig({ 'persistence-dir': join(file, 'state') }), log.logger)).toBeUndefined();
    expect(log.lines).toEqual([
      expect.objectContaining({
        msg: 'persistence-dir could not be locked: a second gateway on it would not be stopped',
        err: expect.objectContaining({ code: 'ENOTDIR' }),
      }),
    ]);
  });
});

describe('two starters in processes of their own, on the same stale locks at once', () => {
  it('exactly one takes each folder', { timeout: 60_000 }, async () => {
    const dirs = Array.from({ length: 300 }, freshDir);
    for (const dir of dirs) await leftLock(dir, { pid: 1, host: 'gone.example' }, LOCK_TIMING.staleAfterMs + 5_000);
    const starters = [0, 1].map(() => {
      const child = spawn(process.execPath, ['--import', tsx, join(here, 'fixtures', 'take-locks.ts'), JSON.stringify(dirs)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(child);
      const lines: string[] = [];
      const next = () =>
        new Promise<string>((resolve, reject) => {
          const seen = lines.shift();
          if (seen !== undefined) return resolve(seen);
          reader.once('line', () => resolve(lines.shift()!));
          child.once('exit', (code) => reject(new Error(`a starter exited (${code})`)));
        });
      const reader = createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
      return { child, next };
    });
    for (const starter of starters) expect(await starter.next()).toBe('ready');
    for (const starter of starters) starter.child.stdin.write('go\n');
    const [first, second] = await Promise.all(starters.map(async (starter) => (JSON.parse(await starter.next()) as { results: string[] }).results));
    const winners = dirs.map((_dir, index) => [first![index], second![index]].filter((result) => result === 'won').length);
    expect(new Set([...first!, ...second!])).toEqual(new Set(['won', 'refused']));
    expect(winners).toEqual(dirs.map(() => 1));
    for (const starter of starters) starter.child.stdin.end();
  });
});
