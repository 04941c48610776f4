/**
 * What check-config and serve say of a bad value names where the operator wrote it: a value that a `${VAR}`
 * in the file gave names that variable (the operator set GW_PORT, not the file's `port:`), and an entry of a
 * caller credential list with a mistyped key names that key, with the key it was likely meant to be.
 */
import { describe, expect, it } from 'vitest';
import { configFolder } from './support.js';

const { yamlFile, configError } = configFolder();

describe('a bad value a ${VAR} in the config file gave', () => {
  it('names the variable and the file that references it', async () => {
    const file = await yamlFile('port: ${GW_PORT}\n');
    const message = await configError(['--config', file], { GW_PORT: 'abc' });
    expect(message).toContain(`port: expected a number, got "abc" (from environment variable GW_PORT, referenced in ${file})`);
  });

  it('names the variable when its value is no JSON where the key takes JSON', async () => {
    const file = await yamlFile('auth:\n  tokens: ${TOKENS}\n');
    const message = await configError(['--config', file], { TOKENS: '[bad' });
    expect(message).toContain(`auth.tokens (from environment variable TOKENS, referenced in ${file}): expected a JSON array`);
  });

  it('names the file alone when the value is the reference default, the variable being unset', async () => {
    const file = await yamlFile('port: ${GW_PORT:-abc}\n');
    const message = await configError(['--config', file]);
    expect(message).toContain(`port: expected a number, got "abc" (from ${file})`);
  });
});

describe('an entry of auth.tokens with a mistyped key', () => {
  it('names the unknown key and the one it was likely meant to be', async () => {
    const file = await yamlFile('auth:\n  tokens:\n    - tokn: x\n');
    const message = await configError(['--config', file]);
    expect(message).toContain(`auth.tokens.0: expected a string or { name, token }`);
    expect(message).toContain(`auth.tokens.0.tokn: unknown key, did you mean token? (from ${file}); known keys here: name, token`);
  });

  it('names it in bailian.api-keys too', async () => {
    const file = await yamlFile('bailian:\n  api-keys:\n    - { name: prod, kye: k1 }\n');
    const message = await configError(['--config', file]);
    expect(message).toContain(`bailian.api-keys.0.kye: unknown key, did you mean key? (from ${file}); known keys here: name, key`);
  });
});
