import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, root, serveCli } from '../support/run-cli.js';

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
    expect(run.stderr).toMatch(/port: expected a number, got "abc"/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe('');
  });

  it('an unknown option exits 2 naming it', async () => {
    const run = await cli(['--token', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option --token');
  });

  it('--config= (empty) exits 2 rather than checking the defaults; a mistyped command is named as such', async () => {
    const empty = await cli(['check-config', '--config=']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^a2a-bridge: option --config needs a value\n/);
    expect(empty.stdout).toBe('');
    const mistyped = await cli(['cal', 'http://127.0.0.1:1', 'hi']);
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toMatch(/^a2a-bridge: unknown command cal \(expected serve, check-config, health, help, version, call, card, lint\)\n/);
  });
});

const SERVE_ARGS = ['--port', '0', '--public-url', 'https://gw.example.com'];
const stop = (child: ChildProcess) => child.exitCode === null && child.kill('SIGKILL');

describe('a2a-bridge serve', () => {
  it('logs the listening URL, serves, and drains then exits 0 on SIGTERM', async () => {
    const serve = await serveCli(SERVE_ARGS);
    try {
      expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${serve.url}/health`);
      expect(health.status).toBe(200);
      serve.child.kill('SIGTERM');
      const [code] = await serve.exited;
      expect(code).toBe(0);
    } finally {
      stop(serve.child);
    }
  });

  // A terminal or ssh session that closes sends SIGHUP: Node's default ends the process at once (code 129), cutting
  // every open stream without its closing frame and logging nothing.
  it('drains then exits 0 on SIGHUP, as on SIGTERM, saying so', async () => {
    const serve = await serveCli(SERVE_ARGS);
    try {
      expect((await fetch(`${serve.url}/health`)).status).toBe(200);
      serve.child.kill('SIGHUP');
      const logged = await serve.logged((entry) => entry.msg === 'shutting down: draining open requests');
      expect(logged).toMatchObject({ signal: 'SIGHUP' });
      const [code] = await serve.exited;
      expect(code).toBe(0);
    } finally {
      stop(serve.child);
    }
  });

  it('a rejection nobody handled is logged as an error and the gateway goes on serving (Node would end the process)', async () => {
    const serve = await serveCli(SERVE_ARGS, { preload: [path.join(root, 'test/cli/fixtures/stray-rejection.mjs')] });
    try {
      expect(serve.url).toBeDefined();
      serve.child.kill('SIGUSR2');
      const logged = await serve.logged((entry) => entry.msg?.startsWith('unhandled rejection') === true);
      expect(logged?.err?.message).toBe('a stray rejection');
      expect((await fetch(`${serve.url}/health`)).status).toBe(200);
      expect(serve.child.exitCode).toBeNull();
      serve.child.kill('SIGTERM');
      expect((await serve.exited)[0]).toBe(0);
    } finally {
      stop(serve.child);
    }
  });
});
