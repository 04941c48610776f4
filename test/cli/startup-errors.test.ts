import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, stderrLines, type Run } from '../support/run-cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-startup-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `serve` from the temp folder, so config files are named as an operator would name them. */
async function serveWith(files: Record<string, string>, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return cli(['serve', '--public-url', 'https://gw.example.com', ...args], env, dir);
}

/** Exit 2, every stderr line a plain sentence: no stack frame, no module path or file: URL, no path of the test's (none is a setting's here). */
function expectPlainFailure(run: Run): string[] {
  expect(run.code).toBe(2);
  const lines = stderrLines(run);
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(line).not.toMatch(/^\s+at /);
    expect(line).not.toMatch(/file:\/\//);
    expect(line).not.toContain(dir);
    expect(line).not.toMatch(/\/(src|dist)\//);
  }
  return lines;
}

describe.concurrent('start-up errors: exit 2, one readable line per problem', { timeout: 60_000 }, () => {
  it('a bad bailian.mappings entry names the table and key, without a stack or module path', async () => {
    const run = await serveWith({ 'mappings.yml': 'bailian:\n  mappings:\n    states-to-v025:\n      TASK_STATE_BOGUS: working\n' }, [
      '--config',
      'mappings.yml',
      '--port',
      '0',
    ]);
    const lines = expectPlainFailure(run);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^a2a-bridge: cannot start: bailian\.mappings .*states-to-v025\.TASK_STATE_BOGUS: unknown key/);
    expect(run.stdout).not.toContain('demo agent');
  });

  it('a port in use is reported before the demo agent or upstream detection run', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await serveWith({}, ['--port', String(port)]);
      const lines = expectPlainFailure(run);
      expect(lines).toEqual([
        `a2a-bridge: cannot start: port ${port} on 127.0.0.1 is already in use (stop the other process or pick another --port)`,
      ]);
      expect(run.stdout).not.toContain('embedded demo agent');
      expect(run.stdout).not.toContain('upstream');
    } finally {
      taken.close();
    }
  });

  it('a taken gRPC port names grpc.port', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const lines = expectPlainFailure(await serveWith({}, ['--port', '0'], { A2A_BRIDGE_GRPC__PORT: String(port) }));
      expect(lines).toEqual([
        `a2a-bridge: cannot start: port ${port} on 127.0.0.1 is already in use (stop the other process or pick another grpc.port)`,
      ]);
    } finally {
      taken.close();
    }
  });

  it('an unreadable config file (a folder) and a missing one', async () => {
    await mkdir(path.join(dir, 'folder.yml'), { recursive: true });
    const folder = expectPlainFailure(await serveWith({}, ['--config', 'folder.yml']));
    expect(folder[0]).toBe('a2a-bridge: config file folder.yml is a directory');
    const missing = expectPlainFailure(await serveWith({}, ['--config', 'nope.yml']));
    expect(missing[0]).toBe('a2a-bridge: config file not found: nope.yml');
  });

  it('every unset ${VAR} is reported at once', async () => {
    const yaml = 'upstream:\n  auth:\n    token: ${UP_TOKEN_X}\nauth:\n  token: ${GW_TOKEN_X}\nbailian:\n  api-key: ${KEY_X}\n';
    const lines = expectPlainFailure(await serveWith({ 'vars.yml': yaml }, ['--config', 'vars.yml']));
    const problems = lines.filter((line) => line.startsWith('  - '));
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/upstream\.auth\.token: environment variable UP_TOKEN_X is not set \(referenced in vars\.yml/);
    expect(problems[1]).toMatch(/auth\.token: environment variable GW_TOKEN_X is not set/);
    expect(problems[2]).toMatch(/bailian\.api-key: environment variable KEY_X is not set/);
  });

  it('a number where a string is expected says to quote it', async () => {
    const lines = expectPlainFailure(await serveWith({ 'number.yml': 'bailian:\n  api-key: 123\n' }, ['--config', 'number.yml']));
    expect(lines.join('\n')).toMatch(/bailian\.api-key: expected a string, got a number \(from number\.yml\) — YAML read it as a number: quote it/);
    expect(lines.join('\n')).not.toContain('123');
  });

  it('a malformed Sentinel URL names redis-url and what is wrong, never its password', async () => {
    const yaml = 'store: redis\nredis-url: redis+sentinel://:hunter2@sentinel-1:26379,sentinel-2:x/mymaster\n';
    const lines = expectPlainFailure(await serveWith({ 'sentinel.yml': yaml }, ['--config', 'sentinel.yml', '--port', '0']));
    const problems = lines.filter((line) => line.startsWith('  - '));
    expect(problems).toEqual([
      expect.stringMatching(/^ {2}- redis-url: a sentinel port in the Sentinel URL is not a port number .*\(from sentinel\.yml\)$/),
    ]);
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it("the operator's own problem names the setting, the full path and the errno; a bad push key stops it before anything starts", async () => {
    await writeFile(path.join(dir, 'afile'), '');
    const push = { A2A_BRIDGE_PUSH_NOTIFICATIONS: 'true' };
    const [persistence, keys] = await Promise.all([
      serveWith({}, ['--port', '0'], { ...push, A2A_BRIDGE_PERSISTENCE_DIR: 'afile/sub' }),
      serveWith({}, ['--port', '0'], { ...push, A2A_BRIDGE_PUSH_KEYS: 'k1:c2hvcnRTRUNSRVQ=' }),
    ]);
    expect(persistence.code).toBe(2);
    expect(stderrLines(persistence)).toEqual([
      `a2a-bridge: cannot start: persistence-dir ${path.join(dir, 'afile', 'sub')} cannot be used (ENOTDIR: not a directory)`,
    ]);
    expect(expectPlainFailure(keys)).toEqual(["a2a-bridge: cannot start: push-keys entry #1 ('k1'): the key must be 32 bytes, base64-encoded"]);
    for (const run of [persistence, keys]) expect(run.stdout).not.toContain('embedded demo agent');
  });

  it('the example config in deploy/ starts once its variables are set', async () => {
    const example = path.resolve('deploy/a2a-bridge.example.yml');
    const run = await cli(['check-config', '--config', example], { IAC_CODE_A2A_TOKEN: 'a', GATEWAY_TOKEN: 'b', BAILIAN_API_KEY: 'c' });
    expect(run.code).toBe(0);
  });
});
