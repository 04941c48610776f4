/**
 * `redis-url` with a password the Redis does not ask for (a Redis without `requirepass`, as deploy/k8s runs
 * one, with a URL copied from a managed Redis). The gateway works, but the operator should know: one warning
 * in the gateway's own JSON log naming the setting, the URL without its password; not ioredis's raw
 * `[WARN] ... a password was supplied` on stderr, once per connection, that names no setting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { cliNodeArgs, root } from '../support/run-cli.js';

const PASSWORD = 'not-needed-redis-password-5e7d';

/** REDIS_URL (a Redis that asks for no password) with a password in it. */
function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = PASSWORD;
  return parsed.href;
}

describe('a redis-url password the Redis does not need', () => {
  const children: ChildProcess[] = [];
  let stdout = '';
  let stderr = '';
  beforeAll(async () => {
    await requireRedis();
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('A2A_BRIDGE_')));
    const child = spawn(process.execPath, [...cliNodeArgs(), 'serve', '--port', '0', '--host', '127.0.0.1'], {
      cwd: root,
      env: {
        ...env,
        A2A_BRIDGE_STORE: 'redis',
        A2A_BRIDGE_REDIS_URL: withPassword(REDIS_URL),
        A2A_BRIDGE_REDIS_PREFIX: `pw-not-needed-${process.pid}:`,
        A2A_BRIDGE_LOG_FORMAT: 'json',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = once(child, 'exit');
    const listening = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((one) => one.includes('"a2a-bridge listening"'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      void exited.then(() => reject(new Error(`the gateway exited before listening: ${stdout}${stderr}`)));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Every store's connection is made before the listening line; /ready asks each of them once more.
    await (await fetch(`${await listening}/ready`)).text();
    child.kill('SIGTERM');
    await exited;
  }, 60_000);
  afterAll(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

  it('is told once, in the JSON log, naming redis-url and the URL without the password', () => {
    const lines = `${stdout}\n${stderr}`.split('\n').filter((line) => line.trim() !== '');
    expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
    const told = lines
      .map((line) => JSON.parse(line) as { level?: number | string; msg?: string })
      .filter((line) => /password/i.test(line.msg ?? ''));
    expect(told).toHaveLength(1);
    expect([40, 'warn']).toContain(told[0]!.level);
    expect(told[0]!.msg).toMatch(/^redis-url: the Redis at redis:\/\/\[redacted\]@[^ ]+ asks for no password, but the URL gives one/);
    expect(`${stdout}${stderr}`).not.toContain(PASSWORD);
  });
});
