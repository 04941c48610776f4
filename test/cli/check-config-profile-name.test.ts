import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/run-cli.js';

/**
 * A mistyped `bailian.profile` stops serve and check-config, as every bad setting does, told as they are: the setting
 * and its choices, where it was given and the pointer to --help, as `store: expected one of memory, redis (from …)`
 * is (the text given is not repeated), not the mapping loader's file name, which the start's path scrubbing cut to
 * `mappingsbailain.json`.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-profile-name-'));
  await writeFile(path.join(dir, 'gw.yml'), ['bailian:', '  profile: bailain'].join('\n'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a bailian.profile no profile has', { timeout: 60_000 }, () => {
  it('is told by check-config and serve alike, naming the setting and the profiles there are, exit 2', async () => {
    const check = await cli(['check-config', '--config', 'gw.yml'], {}, dir);
    const serve = await cli(['serve', '--config', 'gw.yml', '--port', '0', '--log-level', 'silent'], {}, dir);
    for (const run of [check, serve]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        "a2a-bridge: invalid configuration:\n  - bailian.profile: expected one of a2a-0.2.5, bailian (from gw.yml)\nRun 'a2a-bridge --help' for usage.\n",
      );
    }
  });

  it('given in the environment too', async () => {
    const check = await cli(['check-config'], { A2A_BRIDGE_BAILIAN__PROFILE: 'custom' });
    expect(check.code).toBe(2);
    expect(check.stderr).toBe(
      "a2a-bridge: invalid configuration:\n  - bailian.profile: expected one of a2a-0.2.5, bailian (from A2A_BRIDGE_BAILIAN__PROFILE)\nRun 'a2a-bridge --help' for usage.\n",
    );
  });
});
