/**
 * Vitest global setup: src/ compiled once per run for the gateway children the tests start (run-cli.ts).
 * Run through tsx, each child took its ~580 modules through tsx's loader thread: some 2.5 s of CPU per start,
 * about 120 starts a run, a quarter of the whole suite's CPU on a 2-core host. esbuild compiles each file on
 * its own here, as tsx does on the fly (tsx is esbuild underneath), so a child runs the same code.
 *
 * Laid out as the package is (`dist/` beside `package.json` and `mappings/`, which the CLI finds by walking up),
 * inside the checkout's node_modules: a path that leaks from a child still reads as a local one. One folder per
 * run (its process id), so runs side by side never overwrite each other's files.
 */
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { CLI_BUILD_ENV, root } from './run-cli.js';

/** src/'s TypeScript files, by path. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

const builds = path.join(root, 'node_modules', '.cache', 'a2a-bridge-test-cli');

/** Whether the process `pid` still runs. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The folders of runs that ended without their teardown (an interrupted run), removed. */
function removeLeftBuilds(): void {
  const left = readdirSync(builds, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !running(Number(entry.name)));
  for (const entry of left) rmSync(path.join(builds, entry.name), { recursive: true, force: true });
}

export async function setup(): Promise<(() => void) | undefined> {
  // Each project runs the global setup: the first one builds, and the workers of all inherit the variable.
  if (process.env[CLI_BUILD_ENV]) return undefined;
  const folder = path.join(builds, String(process.pid));
  mkdirSync(builds, { recursive: true });
  removeLeftBuilds();
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  await build({
    entryPoints: sourceFiles(path.join(root, 'src')),
    outbase: path.join(root, 'src'),
    outdir: path.join(folder, 'dist'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  symlinkSync(path.join(root, 'package.json'), path.join(folder, 'package.json'));
  symlinkSync(path.join(root, 'mappings'), path.join(folder, 'mappings'));
  process.env[CLI_BUILD_ENV] = path.join(folder, 'dist', 'cli.js');
  return () => rmSync(folder, { recursive: true, force: true });
}
