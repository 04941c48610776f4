import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { createFileOnceSync, removeStaleTemps, tempPathFor } from '../atomic-file.js';
import { ConfigError } from '../config/config-error.js';
import { keepsFilesInPersistenceDir } from './persistence-dir.js';
import type { GatewayConfig } from '../config/schema.js';

/**
 * One gateway per `persistence-dir`: two would truncate and compact each other's journals and deliver each
 * other's queued notifications, and nothing else stops an operator from starting a second `serve` on the same
 * folder (by mistake, in a rolling update on a shared volume, two replicas mounting one volume). The holder
 * keeps a lock file there, `{pid, host, since, token}`, created whole or not at all (createFileOnceSync), its
 * mtime renewed every heartbeat, removed at a clean stop; a second gateway refuses to start while it is held.
 * Several gateways in one process (tests, an embedder) share their process's hold: the lock guards against
 * another process, which is what an operator starts by mistake.
 */
export const LOCK_FILE = 'a2a-bridge.lock';

export interface LockTiming {
  heartbeatMs: number;
  /** A lock not renewed for this long is a gone holder's, whatever its host: several heartbeats, and room for clock skew between hosts. */
  staleAfterMs: number;
  /** How long a holder on this host that is still alive may take to end (killed a moment ago, not yet torn down). */
  endingGraceMs: number;
}

export const LOCK_TIMING: LockTiming = { heartbeatMs: 5_000, staleAfterMs: 30_000, endingGraceMs: 1_000 };
/** Each round creates or moves a lock: only starters racing each other make more than a few. */
const MAX_ROUNDS = 50;

type LockLogger = Pick<Logger, 'warn' | 'error'>;

interface Holder {
  pid?: number;
  host?: string;
  since?: string;
  token?: string;
}

interface FoundLock {
  holder: Holder;
  text: string;
  ageMs: number;
}

const errnoCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** Not a gateway's lock (damaged, or some other program's file): told by its age alone. */
function parseHolder(text: string): Holder {
  try {
    const parsed = JSON.parse(text) as Holder;
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/** Opened, not only stat'ed: NFS revalidates a file's attributes on open, so the mtime is the holder's last renewal, not a cached one. */
async function readLock(path: string): Promise<FoundLock | undefined> {
  const handle = await open(path, 'r').catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return undefined;
  try {
    const { mtimeMs } = await handle.stat();
    const text = await handle.readFile('utf8');
    return { holder: parseHolder(text), text, ageMs: Date.now() - mtimeMs };
  } finally {
    await handle.close();
  }
}

/** ESRCH: no such process. EPERM: one that runs as another user, alive. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) !== 'ESRCH';
  }
}

const onThisHost = (holder: Holder): boolean => holder.host === hostname() && typeof holder.pid === 'number';

/** Why the lock is a gone gateway's; undefined while its holder may still run. */
function staleBecause(found: FoundLock, timing: LockTiming): string | undefined {
  if (found.ageMs > timing.staleAfterMs) return `not renewed for ${Math.round(found.ageMs / 1000)} s`;
  if (!onThisHost(found.holder)) return undefined;
  // This process holds no lock here (holdings below), so the pid is a gateway's before a restart that got the same pid (a container's pid 1).
  if (found.holder.pid === process.pid) return "its pid is this process's, from before a restart";
  if (!isAlive(found.holder.pid!)) return 'its process is gone';
  return undefined;
}

const holderText = ({ holder, ageMs }: FoundLock): string =>
  holder.pid === undefined || holder.host === undefined
    ? `its lock file ${LOCK_FILE} names no gateway, renewed ${Math.round(ageMs / 1000)} s ago`
    : `pid ${holder.pid} on host ${holder.host}, since ${holder.since ?? 'an unknown time'}`;

const refusal = (dir: string, found: FoundLock): ConfigError =>
  new ConfigError(
    `persistence-dir ${dir} is in use by another gateway (${holderText(found)}): give each gateway its own persistence-dir ` +
      '(replicas share their state through store: redis)',
  );

/**
 * Moves the lock judged stale out of the way; false when it was not that lock any more. rename(2) moves one file
 * once: of two starters taking over the same lock, one moves it, the other finds no file (ENOENT) or, if it came
 * late, the winner's new lock, which it puts back (only a third starter creating a lock in that instant could
 * then be refused its put-back: the winner's heartbeat then reports the lock lost).
 */
async function moveAside(path: string, judged: FoundLock): Promise<boolean> {
  const aside = tempPathFor(path);
  try {
    await rename(path, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
  // Gone before it was read: a stale lock old enough for another starter's removeStaleTemps, never a live one's.
  const moved = await readFile(aside, 'utf8').catch(() => undefined);
  if (moved === undefined) return false;
  if (moved !== judged.text) createFileOnceSync(path, moved);
  await unlink(aside).catch(() => undefined);
  return moved === judged.text;
}

/** Creates this process's lock in `dir` (a folder that exists), taking over a gone holder's; a live holder's is a ConfigError. */
async function takeLock(dir: string, token: string, logger: LockLogger, timing: LockTiming): Promise<void> {
  const path = join(dir, LOCK_FILE);
  await removeStaleTemps(path);
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString(), token });
  const graceEnds = Date.now() + timing.endingGraceMs;
  let tookOver: { found: FoundLock; why: string } | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (createFileOnceSync(path, mine)) {
      if (tookOver)
        logger.warn(`persistence-dir ${dir}: took over the lock of a gateway that is gone (${holderText(tookOver.found)}; ${tookOver.why})`);
      return;
    }
    const found = await readLock(path);
    if (!found) continue;
    const why = staleBecause(found, timing);
    if (why === undefined) {
      if (!onThisHost(found.holder) || Date.now() >= graceEnds) throw refusal(dir, found);
      await sleep(Math.min(100, timing.endingGraceMs));
      continue;
    }
    if (await moveAside(path, found)) tookOver = { found, why };
  }
  throw new ConfigError(`persistence-dir ${dir}: its lock kept changing hands (several gateways starting on it at once?)`);
}

/** Renews the lock while this process holds it; reports, once, a lock that is no longer its own. */
function keepFresh(path: string, token: string, logger: LockLogger, timing: LockTiming): () => Promise<void> {
  let lost = false;
  const renew = async (): Promise<void> => {
    const found = await readLock(path).catch(() => undefined);
    if (found?.holder.token === token) {
      const now = new Date();
      await utimes(path, now, now).catch(() => undefined);
    } else if (!lost) {
      lost = true;
      logger.error({ path, holder: found?.holder }, 'persistence-dir: this gateway lost its lock (removed, or taken over by another gateway)');
    }
  };
  // Unref'd: the lock must never keep a process alive that has nothing else to do.
  const timer = setInterval(() => void renew(), timing.heartbeatMs).unref();
  return async () => {
    clearInterval(timer);
    const found = await readLock(path).catch(() => undefined);
    if (found?.holder.token === token) await unlink(path).catch(() => undefined);
  };
}

interface Holding {
  users: number;
  ready: Promise<() => Promise<void>>;
  closing?: Promise<void>;
}

/**
 * This process's holds, by the folder's real path. On globalThis: a process that loaded this module twice (a
 * bundle beside the sources, a test runner's fresh module graph) is still one holder, never its own stale one.
 */
const HOLDINGS = Symbol.for('a2a-bridge.persistence-dir-holdings');
const holdings = ((globalThis as Record<symbol, unknown>)[HOLDINGS] ??= new Map<string, Holding>()) as Map<string, Holding>;

/**
 * Holds `dir` (made if missing) for this process until the returned release; several callers in this process
 * share one hold, the file removed by the last release. Refused (ConfigError) while another process holds it.
 */
export async function lockPersistenceDir(dir: string, logger: LockLogger, timing: LockTiming = LOCK_TIMING): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const key = await realpath(dir);
  let holding = holdings.get(key);
  while (holding?.closing) {
    await holding.closing;
    holding = holdings.get(key);
  }
  if (!holding) {
    const token = randomBytes(8).toString('hex');
    const ready = takeLock(key, token, logger, timing).then(() => keepFresh(join(key, LOCK_FILE), token, logger, timing));
    holding = { users: 0, ready };
    holdings.set(key, holding);
  }
  const held = holding;
  held.users++;
  let stop: () => Promise<void>;
  try {
    stop = await held.ready;
  } catch (error) {
    if (--held.users === 0 && holdings.get(key) === held) holdings.delete(key);
    throw error;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--held.users > 0) return;
    held.closing = stop().finally(() => holdings.delete(key));
    await held.closing;
  };
}

/**
 * The start's hold on `persistence-dir`, when the gateway keeps files there. Only another gateway's hold stops
 * the start: a folder where no lock can be made (read-only, not a folder) is warned of, and the gateway goes on
 * as before, its files failing as they did (push's folder was checked before: checkPersistenceDir).
 */
export async function holdPersistenceDir(config: GatewayConfig, logger: LockLogger): Promise<(() => Promise<void>) | undefined> {
  if (!keepsFilesInPersistenceDir(config)) return undefined;
  try {
    return await lockPersistenceDir(config['persistence-dir'], logger);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    logger.warn({ err: error, dir: config['persistence-dir'] }, 'persistence-dir could not be locked: a second gateway on it would not be stopped');
    return undefined;
  }
}
