/**
 * Client names on the caller credential lists (`auth.tokens`, `auth.api-keys`, `bailian.api-keys`):
 * each entry a plain secret or `{ name, token }` / `{ name, key }`, names checked; a name may repeat.
 */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { load, yamlFile, configError } = configFolder();

const yaml = (...lines: string[]) => yamlFile(lines.join('\n'));

describe('named entries', () => {
  it('reads plain and named entries side by side from YAML, ${VAR} expanded in the secret', async () => {
    const file = await yaml(
      'auth:',
      '  tokens:',
      '    - plain-token',
      '    - { name: acme, token: "${ACME_TOKEN}" }',
      '  api-keys:',
      '    - name: beta.app_2',
      '      key: beta-key',
      '    - plain-key',
      'bailian:',
      '  api-keys: [{ name: bailian-prod, key: bk-1 }, bk-2]',
    );
    const { config } = await load(['--config', file], { ACME_TOKEN: 'acme-secret' });
    expect(config.auth.tokens).toEqual(['plain-token', { name: 'acme', token: 'acme-secret' }]);
    expect(config.auth['api-keys']).toEqual([{ name: 'beta.app_2', key: 'beta-key' }, 'plain-key']);
    expect(config.bailian['api-keys']).toEqual([{ name: 'bailian-prod', key: 'bk-1' }, 'bk-2']);
  });

  it('keeps plain lists working from the environment (comma-separated or JSON), and takes named ones as JSON', async () => {
    const { config } = await load([], {
      A2A_BRIDGE_AUTH__TOKENS: 'tok-1, tok-2',
      A2A_BRIDGE_AUTH__API_KEYS: '["key-1","key-2"]',
      A2A_BRIDGE_BAILIAN__API_KEYS: '[{"name":"bailian-prod","key":"bk-1"},"bk-2"]',
    });
    expect(config.auth.tokens).toEqual(['tok-1', 'tok-2']);
    expect(config.auth['api-keys']).toEqual(['key-1', 'key-2']);
    expect(config.bailian['api-keys']).toEqual([{ name: 'bailian-prod', key: 'bk-1' }, 'bk-2']);
  });

  it('allows one name in two lists: a name is unique per list, not across them', async () => {
    const file = await yaml(
      'auth:',
      '  tokens: [{ name: acme, token: t }]',
      '  api-keys: [{ name: acme, key: k }]',
      'bailian:',
      '  api-keys: [{ name: acme, key: b }]',
    );
    expect((await load(['--config', file])).config.auth.tokens).toEqual([{ name: 'acme', token: 't' }]);
  });

  it('takes a name of 64 characters', async () => {
    const name = `a${'b'.repeat(63)}`;
    const { config } = await load([], { A2A_BRIDGE_AUTH__TOKENS: JSON.stringify([{ name, token: 't' }]) });
    expect(config.auth.tokens).toEqual([{ name, token: 't' }]);
  });
});

describe('bad names and entries are config errors naming the entry', () => {
  it.each([
    ['a space', 'has space'],
    ['a leading dash', '-acme'],
    ['a leading dot', '.acme'],
    ['65 characters', `a${'b'.repeat(64)}`],
    ['a label-breaking quote', 'ac"me'],
    ['a non-ASCII letter', 'acmé'],
    ['nothing', ''],
  ])('refuses a name with %s', async (_what, name) => {
    const message = await configError([], { A2A_BRIDGE_AUTH__API_KEYS: JSON.stringify(['plain', { name, key: 'k' }]) });
    expect(message).toMatch(/^ {2}- auth\.api-keys\.1\.name: must be 1 to 64 letters, digits, "\.", "_" or "-", starting with a letter or digit/m);
  });

  it("takes one name on several keys of a list: a client's old and new key while it is rotated", async () => {
    const file = await yaml(
      'auth:',
      '  tokens: [{ name: acme, token: t1 }, plain, { name: acme, token: t2 }]',
      'bailian:',
      '  api-keys: [{ name: bailian, key: b1 }, { name: bailian, key: b2 }]',
    );
    const { config } = await load(['--config', file]);
    expect(config.auth.tokens).toEqual([{ name: 'acme', token: 't1' }, 'plain', { name: 'acme', token: 't2' }]);
    expect(config.bailian['api-keys']).toEqual([
      { name: 'bailian', key: 'b1' },
      { name: 'bailian', key: 'b2' },
    ]);
  });

  it('says which shape an entry takes, and which keys a named entry knows', async () => {
    const file = await yaml(
      'auth:',
      '  tokens: [{ name: acme, key: wrong-field }]',
      '  api-keys: [{ name: acme }, { name: beta, key: k, colour: blue }]',
    );
    const message = await configError(['--config', file]);
    expect(message).toMatch(/^ {2}- auth\.tokens\.0: expected a string or \{ name, token \}$/m);
    expect(message).toMatch(/^ {2}- auth\.api-keys\.0: expected a string or \{ name, key \}$/m);
    expect(message).toMatch(/^ {2}- auth\.api-keys\.1\.colour: unknown key .*known keys here: name, key$/m);
  });

  it('keeps the single auth.token, auth.api-key and bailian.api-key plain strings', async () => {
    const file = await yaml(
      'auth:',
      '  token: { name: acme, token: t }',
      '  api-key: { name: acme, key: k }',
      'bailian:',
      '  api-key: { name: acme, key: b }',
    );
    const message = await configError(['--config', file]);
    for (const key of ['auth.token', 'auth.api-key', 'bailian.api-key']) expect(message).toContain(`- ${key}: expected a string, got a mapping`);
  });
});

describe('Basic callers are named by their user', () => {
  const basic = (username: string) => ({ A2A_BRIDGE_AUTH__BASIC_USERNAME: username, A2A_BRIDGE_AUTH__BASIC_PASSWORD: 'pw' });
  const nameWarnings = (warnings: string[]) => warnings.filter((w) => w.includes('basic-username'));

  it('warns when the user cannot be a client name (Basic callers then stay unnamed), not otherwise', async () => {
    expect(nameWarnings((await load([], basic('alice@example.com'))).warnings)).toEqual([
      'auth.basic-username is not a valid client name (1 to 64 letters, digits, ".", "_" or "-"): Basic callers stay unnamed in logs and metrics',
    ]);
    expect(nameWarnings((await load([], basic('alice'))).warnings)).toEqual([]);
    // Without the password Basic is off: nothing to name.
    expect(nameWarnings((await load([], { A2A_BRIDGE_AUTH__BASIC_USERNAME: 'alice@example.com' })).warnings)).toEqual([]);
  });
});
