import { randomBytes } from 'node:crypto';
import { lstat, readdir, rename, rm, unlink } from 'node:fs/promises';
import { posix } from 'node:path';
import type { Logger } from 'pino';
import { ACTIVITY_FOLDER, type WorkspaceActivity } from './workspace-activity.js';

/**
 * Removes the conversation folders below `upstream.workspace-root` that nothing happened in for
 * `idle-after-ms` (`upstream.workspace-prune`); iac-code makes a folder again when a turn names it.
 *
 * Only the root's direct children named `ctx-<32 hex>` (what `workspaceOf` names) that are directories
 * of their own are candidates: never the root, never another name, never a symbolic link, and a walk
 * never follows one. A folder's last activity is the newest mtime in its tree (the folder itself
 * included), or the start of its last turn as the gateway noted it (workspace-activity.ts), whichever
 * is later; a folder this process runs a turn in is kept however old. The walk is bounded: a tree of
 * more entries or depth than that is kept and reported, never guessed at.
 *
 * An idle folder is first renamed away (`.a2a-bridge-pruning-ctx-<hex>-<random>`, one atomic step), then
 * removed: a turn noted between the last look and the rename gets the folder back, and one that starts
 * later finds no folder and iac-code makes a fresh one, never half of an old one. Such a name left by a
 * stop mid-removal is removed by the next sweep. Folders vanishing
 * under a sweep (another replica sweeping the same volume) are not errors; folders it cannot read or
 * remove (permissions) are kept and reported in one warning per sweep.
 */
export const WORKSPACE_NAME = /^ctx-[0-9a-f]{32}$/;
const PRUNING = '.a2a-bridge-pruning-';
const PRUNING_NAME = /^\.a2a-bridge-pruning-ctx-[0-9a-f]{32}-[0-9a-f]{16}$/;
/** A tree larger than this is kept: no sweep spends minutes in one folder. */
const MAX_ENTRIES = 100_000;
const MAX_DEPTH = 64;

export interface WorkspacePrunerOptions {
  root: string;
  idleAfterMs: number;
  /** Sweep interval of `start()`; the first sweep runs after it or a minute, whichever is sooner. */
  everyMs: number;
  logger?: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** The turns this process runs (and notes); without it only the notes on the volume count. */
  activity?: Pick<WorkspaceActivity, 'busy'>;
  /** Called after every sweep (metrics). */
  onSweep?(result: SweepResult): void;
  now?: () => number;
  /** Bounds of the walk through one folder (tests). */
  maxEntries?: number;
  maxDepth?: number;
}

export interface SweepResult {
  /** Folders removed, and the bytes of their files. */
  removed: number;
  bytes: number;
  /** Conversation folders left in place as active: recent files, or a turn. */
  kept: number;
  /** Conversation folders that could not be read or removed (permissions, a tree beyond the walk's bounds): they stay. */
  failed: number;
}

export interface WorkspacePruner {
  /** One sweep now (also while started; two at once are as safe as two replicas). */
  sweep(): Promise<SweepResult>;
  /** Sweeps every `everyMs`, on an unref'd timer. */
  start(): void;
  /** Stops the timer and waits for a running sweep, which stops walking at once. */
  stop(): Promise<void>;
}

type Walked =
  { state: 'active' } | { state: 'idle'; bytes: number } | { state: 'gone' } | { state: 'skip' } | { state: 'unreadable'; problem: string };

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
const vanished = (error: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes(errorCode(error));

export function createWorkspacePruner(options: WorkspacePrunerOptions): WorkspacePruner {
  const { root, idleAfterMs, logger } = options;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let rootMissingSaid = false;

  /** The newest mtime in the folder's tree against `cutoff`, without following a link; stops at the first recent one. */
  async function walk(folder: string, cutoff: number): Promise<Walked> {
    let top;
    try {
      top = await lstat(folder);
    } catch (error) {
      return vanished(error) ? { state: 'gone' } : { state: 'unreadable', problem: errorCode(error) };
    }
    if (!top.isDirectory()) return { state: 'skip' };
    if (top.mtimeMs > cutoff) return { state: 'active' };
    const pending: Array<{ path: string; depth: number }> = [{ path: folder, depth: 0 }];
    let entries = 0;
    let bytes = 0;
    while (pending.length > 0) {
      if (stopped) return { state: 'skip' };
      const dir = pending.pop()!;
      let names: string[];
      try {
        names = await readdir(dir.path);
      } catch (error) {
        if (vanished(error)) {
          if (dir.path === folder) return { state: 'gone' };
          continue;
        }
        return { state: 'unreadable', problem: errorCode(error) };
      }
      for (const name of names) {
        if (++entries > maxEntries) return { state: 'unreadable', problem: `more than ${maxEntries} entries` };
        const path = posix.join(dir.path, name);
        let stats;
        try {
          stats = await lstat(path);
        } catch (error) {
          if (vanished(error)) continue;
          return { state: 'unreadable', problem: errorCode(error) };
        }
        if (stats.mtimeMs > cutoff) return { state: 'active' };
        if (!stats.isDirectory()) bytes += stats.size;
        else if (dir.depth + 1 > maxDepth) return { state: 'unreadable', problem: `deeper than ${maxDepth} folders` };
        else pending.push({ path, depth: dir.depth + 1 });
      }
    }
    return { state: 'idle', bytes };
  }

  /** When the gateway last noted a turn starting in the folder `name` (0: never, or the note is gone). */
  async function notedAt(name: string): Promise<number> {
    try {
      return (await lstat(posix.join(root, ACTIVITY_FOLDER, name))).mtimeMs;
    } catch {
      return 0;
    }
  }

  const turnSince = async (name: string, cutoff: number): Promise<boolean> =>
    (await notedAt(name)) > cutoff || (options.activity?.busy(name) ?? false);

  /** Renames the folder away, then removes it; `gone` when another sweep took it first, `kept` when a turn began in it just now. */
  async function remove(name: string, cutoff: number): Promise<'removed' | 'gone' | 'kept'> {
    const folder = posix.join(root, name);
    const away = posix.join(root, `${PRUNING}${name}-${randomBytes(8).toString('hex')}`);
    try {
      await rename(folder, away);
    } catch (error) {
      if (vanished(error)) return 'gone';
      throw error;
    }
    // A turn noted between the last look and the rename gets its folder back (over the empty one
    // iac-code may have made since; one it already wrote to stays, and the old one goes).
    if (
      (await turnSince(name, cutoff)) &&
      (await rename(away, folder).then(
        () => true,
        () => false,
      ))
    )
      return 'kept';
    await rm(away, { recursive: true, force: true, maxRetries: 2 });
    return 'removed';
  }

  /** The notes of folders that are gone, once they are idle too. */
  async function forgetNotes(cutoff: number): Promise<void> {
    let names: string[];
    try {
      names = await readdir(posix.join(root, ACTIVITY_FOLDER));
    } catch {
      return;
    }
    for (const name of names) {
      if (stopped) return;
      if (!WORKSPACE_NAME.test(name)) continue;
      const note = posix.join(root, ACTIVITY_FOLDER, name);
      try {
        if ((await lstat(note)).mtimeMs > cutoff) continue;
        await lstat(posix.join(root, name));
      } catch (error) {
        if (vanished(error)) await unlink(note).catch(() => undefined);
      }
    }
  }

  async function sweep(): Promise<SweepResult> {
    const result: SweepResult = { removed: 0, bytes: 0, kept: 0, failed: 0 };
    const problems: Array<{ folder: string; problem: string }> = [];
    const cutoff = now() - idleAfterMs;
    let names: string[];
    try {
      names = await readdir(root);
    } catch (error) {
      if (vanished(error)) {
        if (!rootMissingSaid) logger?.warn({ root }, 'workspace root not found: nothing to prune (is the workspace volume mounted in the gateway?)');
        rootMissingSaid = true;
      } else {
        logger?.warn({ root, err: errorCode(error) }, 'workspace root cannot be read: nothing pruned');
      }
      return result;
    }
    rootMissingSaid = false;
    for (const name of names) {
      if (stopped) break;
      if (PRUNING_NAME.test(name)) {
        // A removal cut short or failed; or another replica's under way (removing it twice is harmless).
        const away = posix.join(root, name);
        if (!(await lstat(away).catch(() => undefined))?.isDirectory()) continue;
        await rm(away, { recursive: true, force: true, maxRetries: 2 }).catch((error: unknown) => {
          result.failed++;
          problems.push({ folder: name, problem: errorCode(error) });
        });
        continue;
      }
      if (!WORKSPACE_NAME.test(name)) continue;
      const walked = await walk(posix.join(root, name), cutoff);
      if (walked.state === 'gone' || walked.state === 'skip') continue;
      if (walked.state === 'unreadable') {
        result.failed++;
        problems.push({ folder: name, problem: walked.problem });
        continue;
      }
      if (walked.state === 'active' || (await turnSince(name, cutoff))) {
        result.kept++;
        continue;
      }
      try {
        const removal = await remove(name, cutoff);
        if (removal === 'kept') result.kept++;
        if (removal === 'removed') {
          result.removed++;
          result.bytes += walked.bytes;
        }
      } catch (error) {
        result.failed++;
        problems.push({ folder: name, problem: errorCode(error) });
      }
    }
    await forgetNotes(cutoff);
    if (result.removed > 0) logger?.info({ root, removed: result.removed, bytes: result.bytes }, 'idle workspace folders removed');
    if (problems.length > 0) {
      logger?.warn(
        { root, failed: problems.length, first: problems[0] },
        'workspace folders could not be read or removed and stay on disk (EACCES, EPERM: the gateway must be able to remove what iac-code writes)',
      );
    }
    logger?.debug({ root, ...result }, 'workspace sweep done');
    options.onSweep?.(result);
    return result;
  }

  function schedule(ms: number): void {
    timer = setTimeout(() => {
      timer = undefined;
      running = sweep()
        .catch((error: unknown) => logger?.warn({ root, err: error instanceof Error ? error.message : String(error) }, 'workspace sweep failed'))
        .finally(() => {
          running = undefined;
          if (!stopped) schedule(options.everyMs);
        });
    }, ms);
    timer.unref();
  }

  return {
    sweep,
    start() {
      if (stopped || timer || running) return;
      schedule(Math.min(options.everyMs, 60_000));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
