import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, root } from '../support/run-cli.js';

describe.concurrent('a2a-bridge CLI', () => {
  it('--help prints usage with flags and env conventions and exits 0', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: a2a-bridge/);
    expect(run.stdout).toContain('--upstream URL');
    expect(run.stdout).toContain('A2A_BRIDGE_');
  });

  it('version prints the package version', async () => {
    const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const run = await cli(['version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it('a bad --port exits 2 with a message naming port and no stack trace', async () => {
    const run = await cli(['serve', '--port', 'abc']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/port: .*expected number/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
  });

  it('an unknown option exits 2 naming it', async () => {
    const run = await cli(['--token', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option --token');
  });
});

describe('a2a-bridge serve', () => {
  it('logs the listening URL, serves, and drains then exits 0 on SIGTERM', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('A2A_BRIDGE_')));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--public-url', 'https://gw.example.com'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = once(child, 'exit');
    try {
      const lines = createInterface({ input: child.stdout });
      let url: string | undefined;
      for await (const line of lines) {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'a2a-bridge listening') {
          url = entry.url;
          break;
        }
      }
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
