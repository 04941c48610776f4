/**
 * Real folders for the workspace pruner's tests: a fresh root (and a folder outside it) per test
 * (`useFreshFolders`), aged with `utimes`, and a pruner over that root whose log lines and sweeps are
 * kept. `base`, `root` and `outside` are live bindings: read them inside a test, they change with every
 * one.
 */
import { chmod, lstat, lutimes, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createWorkspacePruner, type SweepResult, type WorkspacePrunerOptions } from '../../../src/upstream/iac-code/workspace-pruner.js';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';

export const DAY = 24 * 3_600_000;
export const IDLE_AFTER = 7 * DAY;

export let base: string;
export let root: string;
export let outside: string;

/**
 * A fresh root and outside folder for every test of the calling file. Called by each file: hooks made
 * when this module is evaluated would serve only the first file that imports it in a shared process.
 */
export function useFreshFolders(): void {
  beforeEach(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-prune-'));
    root = path.join(base, 'workspaces');
    outside = path.join(base, 'outside');
    await mkdir(root);
    await mkdir(outside);
  });

  afterEach(async () => {
    // A test may have taken its permissions away.
    await chmod(root, 0o755).catch(() => undefined);
    await rm(base, { recursive: true, force: true });
  });
}

export const exists = (file: string) =>
  lstat(file).then(
    () => true,
    () => false,
  );

/** Files (path → content) under `folder`, with the folders on their way. */
export async function fill(folder: string, files: Record<string, string>): Promise<void> {
  await mkdir(folder, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, file)), { recursive: true });
    await writeFile(path.join(folder, file), content);
  }
}

/** Sets the times of `target` and everything below it (links themselves, never what they point to) `days` back. */
export async function age(target: string, days: number): Promise<void> {
  const when = new Date(Date.now() - days * DAY);
  const stats = await lstat(target);
  if (stats.isDirectory()) for (const name of await readdir(target)) await age(path.join(target, name), days);
  await lutimes(target, when, when);
}

/** A conversation's folder with a template in it, everything `days` old. */
export async function conversation(contextId: string, days: number, files: Record<string, string> = { 'main.tf': 'resource "x" "y" {}' }) {
  const folder = workspaceOf(root, contextId);
  await fill(folder, files);
  await age(folder, days);
  return folder;
}

interface Logged {
  level: 'info' | 'warn' | 'debug';
  fields: Record<string, unknown>;
  message: string;
}

export function pruner(options: Partial<WorkspacePrunerOptions> = {}) {
  const logs: Logged[] = [];
  const log = (level: Logged['level']) => (fields: Record<string, unknown>, message: string) => logs.push({ level, fields, message });
  const sweeps: SweepResult[] = [];
  const instance = createWorkspacePruner({
    root,
    idleAfterMs: IDLE_AFTER,
    everyMs: 3_600_000,
    logger: { info: log('info'), warn: log('warn'), debug: log('debug') } as never,
    onSweep: (result) => sweeps.push(result),
    ...options,
  });
  return { ...instance, logs, sweeps, warnings: () => logs.filter((line) => line.level === 'warn') };
}
