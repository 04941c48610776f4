import { vi } from 'vitest';
import { run as runCall } from '../../src/cli/call.js';
import { run as runCard } from '../../src/cli/card.js';
import { run as runLint } from '../../src/cli/lint.js';
import type { Run } from '../support/run-cli.js';

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = { call: runCall, card: runCard, lint: runLint };

/** The run before this one: runs share this process's stdout and stderr, so they go one at a time. */
let previous: Promise<unknown> = Promise.resolve();

/**
 * What `a2a-bridge <args>` (call, card or lint) exits with and prints, from the command's run function in
 * this process: what the CLI's main does with it, without the second or more of CPU each CLI process
 * spends starting (tsx and the module graph). A test file still runs each command it checks as a CLI
 * process (`cli`) at least once, so the exit code and the output are also seen as a terminal sees them.
 */
export function inProcess(args: string[]): Promise<Run> {
  const command = COMMANDS[args[0] ?? ''];
  if (!command) throw new Error(`not an agent command: ${args[0]}`);
  const running = previous.then(() => captured(() => command(args.slice(1))));
  previous = running.catch(() => undefined);
  return running;
}

async function captured(run: () => Promise<number>): Promise<Run> {
  const printed = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    });
  const writes = [capture('stdout'), capture('stderr')];
  // `call` guards stdout against a closed pipe, as a process of its own would once.
  const stdoutGuards = process.stdout.listeners('error');
  try {
    const code = await run();
    return { code, ...printed };
  } finally {
    for (const write of writes) write.mockRestore();
    for (const listener of process.stdout.listeners('error')) {
      if (!stdoutGuards.includes(listener)) process.stdout.off('error', listener as (error: Error) => void);
    }
  }
}
