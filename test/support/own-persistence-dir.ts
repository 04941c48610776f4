/**
 * Runs before every test file, in every project (vitest.config.ts). A test gateway given no
 * `persistence-dir` would use the default, the checkout's `.a2a-bridge`, and a start reads back what is
 * there (the facade's cut-turn notes, push state, the demo's artifacts): files running side by side would
 * write the same files at once, and each run would start on what the runs before left. So each test file
 * gets a folder of its own, removed after it, which `defaultConfig` (how tests build a gateway's config)
 * fills in when the test names none, as serveCli does for a gateway child; a test that names its own
 * `persistence-dir` keeps it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { defaultConfig, GatewayConfig } from '../../src/config/schema.js';
import { setTestPersistenceDir, testPersistenceDir } from './test-persistence-dir.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-test-state-'));
setTestPersistenceDir(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Marks the schema once patched: in a `shared` worker this file runs again for each file, on the same schema module. */
const PATCHED = Symbol.for('a2a-bridge.test.persistence-dir.patched');
const schema = GatewayConfig as unknown as Record<symbol, unknown> & { parse(input: unknown, ...rest: unknown[]): unknown };
if (!schema[PATCHED]) {
  const parse = schema.parse.bind(schema);
  const isRecord = (input: unknown): input is Record<string, unknown> => typeof input === 'object' && input !== null && !Array.isArray(input);
  schema.parse = (input, ...rest) => parse(isRecord(input) ? { 'persistence-dir': testPersistenceDir(), ...input } : input, ...rest);
  schema[PATCHED] = true;
}
// Loud, not a silent return to the checkout's folder, should defaultConfig ever parse another way.
if (defaultConfig()['persistence-dir'] !== dir) throw new Error('own-persistence-dir.ts: defaultConfig no longer takes the test folder');
