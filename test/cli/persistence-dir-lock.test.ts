/**
 * `a2a-bridge serve` twice on one `persistence-dir`: the second refuses to start with one line naming the folder,
 * the gateway holding it and what to do, and the first serves on; once the first is killed, a new one starts on
 * the folder, and a clean stop leaves no lock behind.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killChildren } from '../support/kill-children.js';
import { cli, serveCli, stderrLines } from '../support/run-cli.js';

const children: ChildProcess[] = [];
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'a2a-bridge-dir-lock-')));
  // The defaults keep the facade's cut-turn notes in persistence-dir: this gateway uses the folder.
  env = { A2A_BRIDGE_PERSISTENCE_DIR: dir };
});
afterAll(async () => {
  await killChildren(children);
  await rm(dir, { recursive: true, force: true });
});

describe('two gateways on one persistence-dir', () => {
  it('the second refuses to start in one line and the first serves on; killed, the first gives way to a new one, which a stop leaves no lock of', async () => {
    const first = await serveCli(['--port', '0'], { env, track: children });
    const second = await cli(['serve', '--port', '0'], env);
    expect(second.code).toBe(2);
    const pid = first.child.pid!;
    expect(stderrLines(second)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^a2a-bridge: cannot start: persistence-dir ${literal(dir)} is in use by another gateway \\(pid ${pid} on host ${literal(hostname())}, since \\d{4}-\\d\\d-\\d\\dT[^)]+\\): ` +
            'give each gateway its own persistence-dir \\(replicas share their state through store: redis\\)$',
        ),
      ),
    ]);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);

    first.child.kill('SIGKILL');
    await first.exited;
    const next = await serveCli(['--port', '0'], { env, track: children });
    expect(next.logs.map((entry) => entry.msg)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^persistence-dir ${literal(dir)}: took over the lock of a gateway that is gone \\(pid ${pid} on host .*; its process is gone\\)$`,
        ),
      ),
    );
    expect((await fetch(`${next.url}/health`)).status).toBe(200);

    next.child.kill('SIGTERM');
    expect(await next.exited).toEqual([0, null]);
    expect(existsSync(join(dir, 'a2a-bridge.lock'))).toBe(false);
  }, 60_000);
});
