/**
 * Vitest global setup: src/ bundled once per run for the gateway children the tests start (run-cli.ts).
 * Some 120 children start a run, and each spends most of its start loading modules: through tsx some 2.5 s
 * of CPU, compiled file by file (~580 files) still about 1.5 s. One bundle of src/ (esbuild, which tsx is
 * underneath) is a few dozen files to load, and a quarter to a third less CPU. The dependencies stay outside
 * it (`packages: 'external'`), loaded from node_modules as the published package loads them. The programs of
 * test/ that tests start as children (run-cli.ts's FIXTURES) are bundled the same way, each with the src/ it
 * imports: started through tsx, they took some 3.5 s of CPU each to come up, bundled about 1.3 s.
 *
 * Laid out as the package is: the CLI's files all in `dist/cli/`, as deep as `dist/cli/main.js`, with
 * `package.json` and `mappings/` two levels up (the CLI reads its version at `../../package.json` from its own
 * module and finds mappings/ by walking up); the fixtures' in `dist/fixtures/`. Inside the checkout's
 * node_modules: a path that leaks from a child still reads as a local one. One folder per run (its process
 * id), so runs side by side never overwrite each other's files.
 */
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { CLI_BUILD_ENV, FIXTURES, fixtureBundle, root } from './run-cli.js';

const builds = path.join(root, 'node_modules', '.cache', 'a2a-bridge-test-cli');
/** The CLI's bundle under dist/, without `.js` (the fixtures' are beside it: run-cli.ts). */
const BUNDLE = 'cli/bundle';

/**
 * `entries` (name under `dist` without `.js` → source; one folder for all) bundled into `dist`, their dependencies
 * left to node_modules. The chunks (src/'s `import()`s, code the entries share) go in the entries' folder: every
 * file of the bundle sits as deep as its entry, where the modules that find files from their own expect to be.
 */
async function bundle(dist: string, entries: Record<string, string>): Promise<void> {
  await build({
    entryPoints: entries,
    outdir: dist,
    chunkNames: `${path.dirname(Object.keys(entries)[0] ?? '')}/[name]-[hash]`,
    bundle: true,
    splitting: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
}

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
  const dist = path.join(folder, 'dist');
  // Two builds: the CLI's chunks its own, not cut finer by what it shares with the fixtures (more files to load).
  await Promise.all([
    bundle(dist, { [BUNDLE]: path.join(root, 'src', 'cli.ts') }),
    bundle(dist, Object.fromEntries(FIXTURES.map((file) => [fixtureBundle(file), file]))),
  ]);
  symlinkSync(path.join(root, 'package.json'), path.join(folder, 'package.json'));
  symlinkSync(path.join(root, 'mappings'), path.join(folder, 'mappings'));
  process.env[CLI_BUILD_ENV] = path.join(dist, `${BUNDLE}.js`);
  return () => rmSync(folder, { recursive: true, force: true });
}
