import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';

/**
 * A temporary folder for one test file's config files (made before its tests, removed after) and
 * `loadConfig` run there: call it once at the top of the file.
 */
export function configFolder() {
  let dir = '';
  let fileCounter = 0;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'a2a-bridge-config-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const load = (argv: string[] = [], env: NodeJS.ProcessEnv = {}) => loadConfig({ argv, env, cwd: dir });

  return {
    load,
    /** Writes `text` to a new YAML file in the folder; its path. */
    async yamlFile(text: string): Promise<string> {
      const file = path.join(dir, `config-${++fileCounter}.yml`);
      await writeFile(file, text);
      return file;
    },
    /** The message of the ConfigError loading fails with (the test fails when it loads). */
    async configError(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
      const error = await load(argv, env).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    },
  };
}
