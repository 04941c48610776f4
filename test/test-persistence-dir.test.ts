/**
 * The test gateways' state folder (test/support/own-persistence-dir.ts, a setup file of every project):
 * each file's own, under the system temp folder, never the checkout's `.a2a-bridge`, which a start reads
 * back. It imports nothing of the setup file, so it fails when a project no longer runs it.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../src/config/schema.js';
import { serveCli } from './support/run-cli.js';
import { testPersistenceDir } from './support/test-persistence-dir.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe("a test gateway's persistence-dir", () => {
  it("is the file's own folder, made for it under the temp folder, when the test names none", () => {
    const dir = defaultConfig({ port: 0 })['persistence-dir'];
    expect(resolve(dir)).not.toBe(resolve('.a2a-bridge'));
    expect(dir.startsWith(tmpdir())).toBe(true);
    expect(basename(dir)).toMatch(/^a2a-bridge-test-state-/);
    expect(existsSync(dir)).toBe(true);
  });

  it('is the one the test names, when it names one', () => {
    expect(defaultConfig({ 'persistence-dir': '/srv/state' })['persistence-dir']).toBe('/srv/state');
  });

  it("is that folder for a gateway child started without a config file: push's generated key file is made there", async () => {
    const dir = testPersistenceDir()!;
    const gateway = await serveCli(['--port', '0'], { env: { A2A_BRIDGE_PUSH_NOTIFICATIONS: 'true' }, track: children });
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    expect(existsSync(join(dir, 'push_keys.json'))).toBe(true);
  });
});
