import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { cliNodeArgs, root } from '../support/run-cli.js';
import { testPersistenceDir } from '../support/test-persistence-dir.js';

/** Enough request lines (about 250 bytes each) to fill a pipe nobody reads (64 KiB) and the reader's own buffer. */
const REQUESTS = 800;

/**
 * `a2a-bridge serve | pino-pretty` and a Ctrl-C kill both: the gateway's last lines, still buffered, meet a pipe
 * with no reader at exit. A reader that stopped reading first (the pipe full, the lines held back) and then went
 * away makes that certain: the exit flush hit EPIPE and retried it forever (or, with a writer that throws, printed
 * a stack trace from an 'exit' listener).
 */
describe('a gateway whose stdout reader went away', { timeout: 20_000 }, () => {
  it('exits on SIGTERM, without a stack trace', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('A2A_BRIDGE_')));
    const dir = testPersistenceDir();
    const child = spawn(process.execPath, [...cliNodeArgs(), 'serve', '--port', '0'], {
      cwd: root,
      env: { ...env, ...(dir ? { A2A_BRIDGE_PERSISTENCE_DIR: dir } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const lines = createInterface({ input: child.stdout });
      const url = await new Promise<string>((resolve) => {
        lines.on('line', (line) => {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'a2a-bridge listening' && entry.url) resolve(entry.url);
        });
      });
      lines.close();
      child.stdout.pause();
      for (let sent = 0; sent < REQUESTS; sent += 50) {
        await Promise.all(Array.from({ length: 50 }, () => fetch(`${url}/no-such-path`).then((response) => response.arrayBuffer())));
      }
      child.kill('SIGTERM');
      // The gateway stops and exits meanwhile, its exit flush held on the full pipe; then the reader goes.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      child.stdout.destroy();
      const gone = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000))]);
      expect(gone).not.toBe('hung');
      expect(gone).toEqual([0, null]);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stderr).toBe('');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
