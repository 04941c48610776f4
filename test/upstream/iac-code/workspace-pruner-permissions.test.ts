/**
 * The workspace pruner on folders it may not read or remove (iac-code writing as another user than
 * the gateway): it keeps them, warns once per sweep and carries on.
 */
import { execFile } from 'node:child_process';
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { SweepResult } from '../../../src/upstream/iac-code/workspace-pruner.js';
import { fixtureNodeArgs } from '../../support/run-cli.js';
import { IDLE_AFTER, base, conversation, exists, root, useFreshFolders } from './pruner-fixtures.js';

useFreshFolders();

describe('the workspace pruner without the right to remove', () => {
  const script = fileURLToPath(new URL('./sweep-once.ts', import.meta.url));
  // Root may remove anything: as root the sweep runs as nobody.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

  /** One sweep in a child process (as nobody when the tests run as root). */
  function sweepElsewhere(): Promise<{ result: SweepResult; logs: Array<{ level: string; fields: any; message: string }> }> {
    return new Promise((resolve, reject) => {
      execFile(process.execPath, [...fixtureNodeArgs(script), root, String(IDLE_AFTER)], { ...asNobody, timeout: 30_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
      );
    });
  }

  it('keeps folders it may not read or remove, warns once per sweep and carries on', async () => {
    await chmod(base, 0o755);
    const unreadable = await conversation('unreadable', 9, { 'secret/plan.tf': 'x' });
    const undeletable = await conversation('undeletable', 9);
    await chmod(path.join(unreadable, 'secret'), 0o000);
    // No write on the root: nothing below it can be renamed away.
    await chmod(root, 0o555);
    const { result, logs } = await sweepElsewhere();
    expect(result).toEqual({ removed: 0, bytes: 0, kept: 0, failed: 2 });
    const warnings = logs.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ failed: 2 });
    expect(warnings[0]!.message).toMatch(/could not be read or removed/);
    await chmod(path.join(unreadable, 'secret'), 0o755);
    expect(await exists(unreadable)).toBe(true);
    expect(await exists(undeletable)).toBe(true);
  });
});
