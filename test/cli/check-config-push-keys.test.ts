/**
 * Replicas sharing a Redis store with push on but no `push-keys` each seal push secrets with their own key file:
 * `check-config` says so before the rollout, as serve does at start, once each and in the same words.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, serveCli, stderrLines } from '../support/run-cli.js';

const warning = 'push-keys is empty with store: redis; configure shared push-keys when running several replicas';
let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-push-keys-'));
  env = {
    A2A_BRIDGE_STORE: 'redis',
    A2A_BRIDGE_PUSH_NOTIFICATIONS: 'true',
    A2A_BRIDGE_REDIS_URL: 'redis://127.0.0.1:6379',
    A2A_BRIDGE_REDIS_PREFIX: `check-config-push-keys-${process.pid}:`,
    A2A_BRIDGE_PERSISTENCE_DIR: dir,
  };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent('an empty push-keys with store: redis', { timeout: 60_000 }, () => {
  it('check-config warns of it once', async () => {
    const run = await cli(['check-config', '--port', '0'], env);
    expect(run.code).toBe(0);
    expect(stderrLines(run).filter((line) => line === `warning: ${warning}`)).toHaveLength(1);
  });

  it('serve warns of it once, in the same words', async () => {
    const serve = await serveCli(['--port', '0'], { env });
    try {
      // The push service is made before the gateway listens: every start warning is in by the listening line.
      expect(serve.logs.filter((entry) => entry.msg === warning)).toHaveLength(1);
    } finally {
      serve.child.kill('SIGKILL');
    }
  });

  it('is not said with push-keys set, nor with push off', async () => {
    const keyed = await cli(['check-config', '--port', '0'], { ...env, A2A_BRIDGE_PUSH_KEYS: '["k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]' });
    const pushOff = await cli(['check-config', '--port', '0'], { ...env, A2A_BRIDGE_PUSH_NOTIFICATIONS: 'false' });
    for (const run of [keyed, pushOff]) {
      expect(run.code).toBe(0);
      expect(run.stderr).not.toContain('push-keys is empty');
    }
  });
});
