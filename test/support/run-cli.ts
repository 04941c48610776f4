import { execFile } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entry = path.join(root, 'src/cli.ts');
/** tsx by URL: the CLI may run from any folder. */
const tsx = pathToFileURL(createRequire(entry).resolve('tsx')).href;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from source with a clean environment (no inherited A2A_BRIDGE_* settings). */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = root): Promise<Run> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('A2A_BRIDGE_')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', tsx, entry, ...args],
      { cwd, env: { ...inherited, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Lines of stderr that are not blank. */
export const stderrLines = (run: Run): string[] => run.stderr.split('\n').filter((line) => line.trim() !== '');
