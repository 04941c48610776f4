import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it, type TestContext } from 'vitest';
import { startedByNpmInForeground } from '../../src/cli/npm-parent-watch.js';
import { startHungServer } from '../support/hung-server.js';
import { cliNodeArgs, root } from '../support/run-cli.js';
import { waitUntil } from '../support/wait-until.js';

/** Running (a zombie is not: an orphan's new parent may be slow to reap it, or never, in a container). */
const alive = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/**
 * `serve` the way npm runs a package's bin or script: under `sh -c`, which npm forwards SIGTERM to and
 * which dies of it without passing it on (`; exit $?` keeps a shell that would exec the command in place).
 * What it started is killed when the test that called it ends (the tests run side by side: the test's own hook).
 * Each gateway has a persistence-dir of its own: the gateways side by side may not share one.
 */
async function serveUnderShell(onTestFinished: TestContext['onTestFinished'], env: NodeJS.ProcessEnv) {
  const started: number[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-npm-'));
  onTestFinished(() => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const command = `${[process.execPath, ...cliNodeArgs()].map((arg) => `"${arg}"`).join(' ')} serve --port 0; exit $?`;
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('A2A_BRIDGE_') && !key.startsWith('npm_')));
  const shell = spawn('sh', ['-c', command], {
    cwd: root,
    env: { ...cleanEnv, A2A_BRIDGE_PERSISTENCE_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const messages: string[] = [];
  let url = '';
  const seen = new Set<(message: string) => void>();
  createInterface({ input: shell.stdout }).on('line', (line) => {
    let entry: { msg?: string; pid?: number; url?: string };
    try {
      entry = JSON.parse(line) as { msg?: string; pid?: number; url?: string };
    } catch {
      return;
    }
    messages.push(entry.msg ?? '');
    if (entry.msg === 'a2a-bridge listening' && entry.url) url = entry.url;
    if (entry.pid !== undefined && !started.includes(entry.pid)) started.push(entry.pid);
    for (const waiter of seen) waiter(entry.msg ?? '');
  });
  const logged = (wanted: string, withinMs: number) =>
    new Promise<boolean>((resolve) => {
      if (messages.includes(wanted)) return resolve(true);
      const waiter = (message: string) => message === wanted && resolve(true);
      seen.add(waiter);
      setTimeout(() => resolve(false), withinMs).unref();
    });
  expect(await logged('a2a-bridge listening', 45_000)).toBe(true);
  return { shell, gatewayPid: started.at(-1)!, logged, url };
}

// Each test starts a gateway of its own and waits on it (its start, a 3 s drain, 3 s of running on): side by side.
describe.concurrent('a gateway npm started, whose npm was stopped', { timeout: 90_000 }, () => {
  it('drains and exits when the shell npm ran it in dies of the SIGTERM npm passed on', async ({ expect, onTestFinished }) => {
    const { shell, gatewayPid, logged } = await serveUnderShell(onTestFinished, {
      npm_lifecycle_event: 'npx',
      npm_lifecycle_script: "'a2a-bridge' 'serve'",
    });
    shell.kill('SIGTERM');
    expect(await logged('stopped', 10_000)).toBe(true);
    // Gone soon after its last line: a loaded host took longer than a fixed 500 ms to end the process.
    await waitUntil(async () => !alive(gatewayPid));
  });

  it("takes the SIGTERM that follows npm's end (the whole process group signalled) as the first signal, not a second", async ({
    expect,
    onTestFinished,
  }) => {
    // An upstream that never answers holds a call open, so the drain lasts its drain-timeout-ms.
    const hung = await startHungServer();
    try {
      const { shell, gatewayPid, logged, url } = await serveUnderShell(onTestFinished, {
        npm_lifecycle_event: 'npx',
        npm_lifecycle_script: "'a2a-bridge' 'serve'",
        A2A_BRIDGE_UPSTREAM__URL: hung.url,
        A2A_BRIDGE_DRAIN_TIMEOUT_MS: '3000',
        A2A_BRIDGE_LOG_FORMAT: 'json',
      });
      const openCall = fetch(`${url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'held-open' } }),
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      shell.kill('SIGTERM');
      expect(await logged('shutting down: draining open requests', 5_000)).toBe(true);
      process.kill(gatewayPid, 'SIGTERM');
      expect(await logged('second signal: exiting without draining', 1_000)).toBe(false);
      expect(await logged('stopped', 15_000)).toBe(true);
      await openCall;
    } finally {
      await hung.close();
    }
  });

  it('runs on when it was not started by npm (nohup, a shell that left it behind on purpose)', async ({ expect, onTestFinished }) => {
    const { shell, gatewayPid, logged } = await serveUnderShell(onTestFinished, {});
    shell.kill('SIGTERM');
    expect(await logged('stopped', 3_000)).toBe(false);
    expect(alive(gatewayPid)).toBe(true);
  });

  it('is told apart from an npm script that leaves the gateway running in the background on purpose', ({ expect }) => {
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'npx', npm_lifecycle_script: 'a2a-bridge serve --port 8080' })).toBe(true);
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'start', npm_lifecycle_script: 'node dist/cli.js serve 2>&1' })).toBe(true);
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'up', npm_lifecycle_script: 'nohup node dist/cli.js serve > gw.log 2>&1 &' })).toBe(false);
    expect(startedByNpmInForeground({})).toBe(false);
    // npx quotes the words of the bin it runs.
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'npx', npm_lifecycle_script: "'a2a-bridge' 'serve'" })).toBe(true);
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'start', npm_lifecycle_script: '/usr/bin/node dist/cli.js serve >> gw.log 2>&1' })).toBe(
      true,
    );
    // Backgrounded anywhere in the script, chained, or through a wrapper that may leave it behind (review).
    const npmBg = 'nohup node dist/cli.js serve > gw.log 2>&1 & echo $! > gw.pid; sleep 8';
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'bg', npm_lifecycle_script: npmBg })).toBe(false);
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'start', npm_lifecycle_script: 'npm run build && node dist/cli.js serve' })).toBe(false);
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'start', npm_lifecycle_script: './start.sh' })).toBe(false);
    expect(startedByNpmInForeground({ npm_lifecycle_event: 'start', npm_lifecycle_script: 'node dist/cli.js serve | tee gw.log' })).toBe(false);
  });
});
