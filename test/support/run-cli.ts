import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { testPersistenceDir } from './test-persistence-dir.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entry = path.join(root, 'src/cli.ts');
/** tsx by URL: the CLI may run from any folder. */
const tsx = pathToFileURL(createRequire(entry).resolve('tsx')).href;

/** Where the run's bundle of the CLI is (cli-build.ts, the suite's global setup). */
export const CLI_BUILD_ENV = 'A2A_TEST_CLI_BUILD';

/**
 * Node's arguments that run the CLI, before the CLI's own: the run's bundle of src/ when the global setup made
 * it, else src/ through tsx (a file run without the setup). `preload`: modules loaded first (`--import`).
 */
export function cliNodeArgs(preload: readonly string[] = []): string[] {
  const imports = preload.flatMap((module) => ['--import', module]);
  const built = process.env[CLI_BUILD_ENV];
  return built ? [...imports, built] : ['--import', tsx, ...imports, entry];
}

/** The programs of test/ that tests start as children (they import src/), bundled beside the CLI by cli-build.ts. */
export const FIXTURES = [
  'test/e2e/facade/fixtures/facade-replica-process.ts',
  'test/e2e/hardening/fixtures/capped-heap-gateway.ts',
  'test/e2e/hardening/fixtures/gateway-process.ts',
  'test/observability/fixtures/pretty-log.ts',
  'test/push/fixtures/redis-worker.ts',
  'test/upstream/iac-code/sweep-once.ts',
].map((file) => path.join(root, file));

/** A fixture's bundle under the build's `dist/`, without `.js`: `fixtures/` and its file's name. */
export const fixtureBundle = (file: string): string => `fixtures/${path.basename(file, '.ts')}`;

/**
 * Node's arguments that run `file`, one of FIXTURES, before the fixture's own: its bundle of the run when the
 * global setup made it (in `dist/fixtures/`, beside the CLI's `dist/cli/`), else the file through tsx.
 */
export function fixtureNodeArgs(file: string): string[] {
  if (!FIXTURES.includes(file)) throw new Error(`${file} is not in FIXTURES, the programs cli-build.ts bundles`);
  const built = process.env[CLI_BUILD_ENV];
  return built ? [path.join(path.dirname(built), '..', `${fixtureBundle(file)}.js`)] : ['--import', tsx, file];
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** This process's environment without its A2A_BRIDGE_* settings, plus `env`. */
const cleanEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('A2A_BRIDGE_'))),
  ...env,
});

/** Runs the CLI from source with a clean environment (no inherited A2A_BRIDGE_* settings). */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = root): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...cliNodeArgs(), ...args], { cwd, env: cleanEnv(env), timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Lines of stderr that are not blank. */
export const stderrLines = (run: Run): string[] => run.stderr.split('\n').filter((line) => line.trim() !== '');

/** One JSON line of the gateway's log. */
export interface LogEntry {
  msg?: string;
  url?: string;
  err?: { message?: string };
}

export interface ServingCli {
  child: ChildProcess;
  /** Where it listens, from its "a2a-bridge listening" line. */
  url: string;
  /** Every log line so far. */
  logs: LogEntry[];
  /** The first log line, so far or to come, that `wanted` accepts; rejected when the process exits first. */
  logged(wanted: (entry: LogEntry) => boolean): Promise<LogEntry>;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/**
 * A gateway child started without a config file keeps its files in the test file's folder
 * (own-persistence-dir.ts), not the checkout's `.a2a-bridge`, where it runs; the test's own
 * A2A_BRIDGE_PERSISTENCE_DIR beats it. Not with a config file: the variable would beat the folder it names.
 */
function ownFolder(args: string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const dir = testPersistenceDir();
  const configFile = args.some((arg) => arg === '--config' || arg.startsWith('--config=')) || env.A2A_BRIDGE_CONFIG !== undefined;
  return dir && !configFile ? { A2A_BRIDGE_PERSISTENCE_DIR: dir } : {};
}

/**
 * `a2a-bridge serve <args>` from source in a child process with a clean environment, once it listens.
 * `preload`: modules loaded before the CLI (`--import`); `track`: where the child is put at once, for
 * the caller's cleanup to kill even when it never comes to listen.
 */
export async function serveCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; preload?: string[]; track?: ChildProcess[] } = {},
): Promise<ServingCli> {
  const child = spawn(process.execPath, [...cliNodeArgs(options.preload), 'serve', ...args], {
    cwd: root,
    env: cleanEnv({ ...ownFolder(args, options.env ?? {}), ...options.env }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  options.track?.push(child);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const logs: LogEntry[] = [];
  const waiting = new Set<{ wanted: (entry: LogEntry) => boolean; resolve: (entry: LogEntry) => void }>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      return;
    }
    logs.push(entry);
    for (const waiter of waiting) {
      if (!waiter.wanted(entry)) continue;
      waiting.delete(waiter);
      waiter.resolve(entry);
    }
  });
  const logged = (wanted: (entry: LogEntry) => boolean): Promise<LogEntry> => {
    const seen = logs.find(wanted);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = { wanted, resolve };
      waiting.add(waiter);
      void exited.then(([code]) => {
        if (waiting.delete(waiter)) reject(new Error(`the CLI exited (${String(code)}) before the log line awaited`));
      });
    });
  };
  const { url } = await logged((entry) => entry.msg === 'a2a-bridge listening' && typeof entry.url === 'string');
  return { child, url: url as string, logs, logged, exited };
}
