/** `upstream.workspace-prune`: on by default with a workspace root, what it refuses, and the owner-memory warning. */
import { describe, expect, it } from 'vitest';
import { workspacePruning } from '../../src/config/workspace-prune-schema.js';
import { cli, stderrLines } from '../support/run-cli.js';
import { configFolder } from './support.js';

const { load, configError, yamlFile } = configFolder();

const ROOT = { A2A_BRIDGE_UPSTREAM__WORKSPACE_ROOT: '/workspaces' };
const DAY = 24 * 3_600_000;

describe('upstream.workspace-prune', () => {
  it('is in force with a workspace root: folders idle for seven days go, swept every hour', async () => {
    const { config, warnings } = await load([], ROOT);
    expect(config.upstream['workspace-prune']).toBeUndefined();
    expect(workspacePruning(config.upstream)).toEqual({ root: '/workspaces', idleAfterMs: 7 * DAY, everyMs: 3_600_000 });
    expect(warnings.join('\n')).not.toMatch(/workspace-prune/);
    // Without a root there is nothing to prune.
    expect(workspacePruning((await load()).config.upstream)).toBeUndefined();
  });

  it('is set in the file or the environment, and idle-after-ms 0 turns it off', async () => {
    const file = await yamlFile('upstream:\n  workspace-root: /srv/w\n  workspace-prune:\n    idle-after-ms: 172800000\n');
    expect(workspacePruning((await load(['--config', file])).config.upstream)).toEqual({
      root: '/srv/w',
      idleAfterMs: 2 * DAY,
      everyMs: 3_600_000,
    });
    const fromEnv = await load([], {
      ...ROOT,
      A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS: '3600000',
      A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__EVERY_MS: '600000',
    });
    expect(fromEnv.config.upstream['workspace-prune']).toEqual({ 'idle-after-ms': 3_600_000, 'every-ms': 600_000 });
    const off = await load([], { ...ROOT, A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS: '0' });
    expect(workspacePruning(off.config.upstream)).toBeUndefined();
  });

  it('is refused without a workspace root: a setting nothing would act on is an error, not ignored', async () => {
    const file = await yamlFile('upstream:\n  workspace-prune:\n    idle-after-ms: 86400000\n');
    expect(await configError(['--config', file])).toMatch(/upstream\.workspace-prune: needs upstream\.workspace-root/);
    expect(await configError([], { A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__EVERY_MS: '60000' })).toMatch(
      /upstream\.workspace-prune: needs upstream\.workspace-root/,
    );
  });

  it('refuses a bound below an hour, a sweep interval outside a second to a day, and unknown keys, naming the key and where it came from', async () => {
    const tooShort = await configError([], { ...ROOT, A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS: '600000' });
    expect(tooShort).toMatch(
      /upstream\.workspace-prune\.idle-after-ms: must be 0 \(off\) or at least 3600000 \(an hour\): a folder must outlive any turn in it \(from A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS\)/,
    );
    expect(await configError([], { ...ROOT, A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__EVERY_MS: '10' })).toMatch(
      /upstream\.workspace-prune\.every-ms: must be at least 1000 \(a second\)/,
    );
    expect(await configError([], { ...ROOT, A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__EVERY_MS: String(2 * DAY) })).toMatch(
      /upstream\.workspace-prune\.every-ms: must be at most 86400000 \(a day\)/,
    );
    expect(await configError([], { ...ROOT, A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS: 'a week' })).toMatch(
      /upstream\.workspace-prune\.idle-after-ms: expected a number, got "a week"/,
    );
    const unknown = await yamlFile('upstream:\n  workspace-root: /w\n  workspace-prune:\n    idle-after: 7d\n');
    expect(await configError(['--config', unknown])).toMatch(
      /upstream\.workspace-prune\.idle-after: unknown key.*known keys here: idle-after-ms, every-ms/,
    );
  });

  it("warns when folders outlive the gateway's memory of their conversation's owner", async () => {
    const { warnings } = await load([], { ...ROOT, A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS: String(30 * DAY) });
    expect(warnings.join('\n')).toMatch(
      /upstream\.workspace-prune\.idle-after-ms \(2592000000\) is above tasks\.context-owner-ttl-ms \(604800000\): .*another caller naming that context would be given its files/,
    );
    // Owners kept forever, or as long: no warning.
    const forever = await load([], {
      ...ROOT,
      A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS: String(30 * DAY),
      A2A_BRIDGE_TASKS__IDLE_TTL_MS: '0',
    });
    expect(forever.warnings.join('\n')).not.toMatch(/workspace-prune/);
  });

  it('stops `serve` with exit 2 and one line naming the problem', async () => {
    const run = await cli(['serve', '--port', '0'], { A2A_BRIDGE_UPSTREAM__WORKSPACE_PRUNE__IDLE_AFTER_MS: '86400000' });
    expect(run.code).toBe(2);
    expect(stderrLines(run).filter((line) => line.includes('workspace-prune'))).toEqual([
      '  - upstream.workspace-prune: needs upstream.workspace-root (it removes the idle conversation folders below it)',
    ]);
  });
});
