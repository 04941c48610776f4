import { describe, expect, it } from 'vitest';
import { BailianConfig } from '../../../src/config/bailian-schema.js';
import { principalOf } from '../../../src/surfaces/shared/principal.js';
import { facadeKeys, requireFacadeKey } from '../../../src/surfaces/v025/auth.js';
import { behindGate } from '../support.js';

describe('requireFacadeKey with named keys (bailian.api-keys)', () => {
  const keys = { 'api-key': 'bk-0', 'api-keys': [{ name: 'bailian-prod', key: 'bk-1' }, 'bk-2'] };
  const who = behindGate(requireFacadeKey(BailianConfig.parse(keys)));

  it("a named key: the request and its log line get the name; the principal is the key's alone", async () => {
    expect(await who({ 'x-api-key': 'bk-1' })).toEqual({
      status: 200,
      body: { principal: principalOf('a2a-0.2.5', 'api-key', 'bk-1'), client: 'bailian-prod', logged: { client: 'bailian-prod' } },
    });
  });

  it.each(['bk-0', 'bk-2'])('the unnamed key %s: no name anywhere', async (key) => {
    expect(await who({ 'x-api-key': key })).toEqual({
      status: 200,
      body: { principal: principalOf('a2a-0.2.5', 'api-key', key), client: null, logged: {} },
    });
  });

  it('refuses a name in place of a key, and lists every key as a plain secret', async () => {
    expect((await who({ 'x-api-key': 'bailian-prod' })).status).toBe(401);
    expect(facadeKeys(BailianConfig.parse(keys))).toEqual(['bk-0', 'bk-1', 'bk-2']);
  });

  it("a rotated key's old and new value share the client's name, each still a caller of its own", async () => {
    const rotating = behindGate(
      requireFacadeKey(
        BailianConfig.parse({
          'api-keys': [
            { name: 'bailian', key: 'old' },
            { name: 'bailian', key: 'new' },
          ],
        }),
      ),
    );
    const [before, after] = [await rotating({ 'x-api-key': 'old' }), await rotating({ 'x-api-key': 'new' })];
    expect(before.body).toMatchObject({ principal: principalOf('a2a-0.2.5', 'api-key', 'old'), client: 'bailian' });
    expect(after.body).toMatchObject({ principal: principalOf('a2a-0.2.5', 'api-key', 'new'), client: 'bailian' });
  });

  it('without keys, every caller is the anonymous facade caller, unnamed', async () => {
    expect(await behindGate(requireFacadeKey(BailianConfig.parse({})))()).toEqual({
      status: 200,
      body: { principal: principalOf('a2a-0.2.5', 'anonymous'), client: null, logged: {} },
    });
  });
});
