import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkKeyRing, createKeyRing, maskConfig, openConfig, sealConfig } from '../../src/push/secrets.js';

const key = () => randomBytes(32).toString('base64');
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('key ring', () => {
  it('round-trips with the first key and a fresh IV each time', () => {
    const ring = createKeyRing([`k1:${key()}`, `k2:${key()}`]);
    const a = ring.encrypt('s3cret');
    const b = ring.encrypt('s3cret');
    expect(a.keyId).toBe('k1');
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(ring.decrypt(a)).toBe('s3cret');
  });

  it('rotates: the new first key encrypts, the old key still decrypts', () => {
    const oldKey = `old:${key()}`;
    const before = createKeyRing([oldKey]);
    const sealedBefore = before.encrypt('legacy');
    const after = createKeyRing([`new:${key()}`, oldKey]);
    expect(after.decrypt(sealedBefore)).toBe('legacy');
    expect(after.encrypt('fresh').keyId).toBe('new');
    expect(() => before.decrypt(after.encrypt('fresh'))).toThrow(/unknown key id 'new'/);
  });

  it('detects tampering with ciphertext, tag or associated data', () => {
    const ring = createKeyRing([`k:${key()}`]);
    const sealed = ring.encrypt('value', 'context-a');
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => ring.decrypt({ ...sealed, ciphertext: flipped.toString('base64') }, 'context-a')).toThrow(/failed authentication/);
    expect(() => ring.decrypt({ ...sealed, tag: Buffer.alloc(16).toString('base64') }, 'context-a')).toThrow(/failed authentication/);
    expect(() => ring.decrypt(sealed, 'context-b')).toThrow(/failed authentication/);
    expect(ring.decrypt(sealed, 'context-a')).toBe('value');
  });

  it('names a bad entry without printing key material', () => {
    const short = Buffer.from('too short').toString('base64');
    expect(() => createKeyRing([`good:${key()}`, `bad:${short}`])).toThrow(/entry #2 \('bad'\).*32 bytes/);
    const thrown = (() => {
      try {
        createKeyRing([`bad:${short}`]);
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    expect(thrown?.message).toMatch(/entry #1 \('bad'\)/);
    expect(thrown?.message).not.toContain(short);
    expect(() => createKeyRing(['no-separator'])).toThrow(/entry #1: expected 'keyId:base64-key'/);
    expect(() => createKeyRing([`a b:${key()}`])).toThrow(/entry #1/);
    expect(() => createKeyRing([`dup:${key()}`, `dup:${key()}`])).toThrow(/duplicate key id/);
    expect(() => createKeyRing([])).toThrow(/at least one key/);
  });

  it('generates a key when none is configured: in memory, or persisted with mode 0600 and reused', async () => {
    const memory = createKeyRing([], { generateIfEmpty: {} });
    expect(memory.decrypt(memory.encrypt('x'))).toBe('x');

    const dir = await mkdtemp(join(tmpdir(), 'push-keys-'));
    dirs.push(dir);
    const path = join(dir, 'nested', 'push_keys.json');
    const first = createKeyRing([], { generateIfEmpty: { persistPath: path } });
    const sealed = first.encrypt('persisted');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const file = JSON.parse(await readFile(path, 'utf8')) as { activeKeyId: string };
    expect(file.activeKeyId).toBe(first.activeKeyId);
    const second = createKeyRing([], { generateIfEmpty: { persistPath: path } });
    expect(second.activeKeyId).toBe(first.activeKeyId);
    expect(second.decrypt(sealed)).toBe('persisted');
  });
});

describe('the generated key file', () => {
  const folder = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-keys-'));
    dirs.push(dir);
    return dir;
  };
  const generated = (path: string) => () => createKeyRing([], { generateIfEmpty: { persistPath: path } });

  it('one it cannot read names the file in persistence-dir, in full, and the errno, not a malformed file', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'afile'), '');
    const underFile = join(dir, 'afile', 'sub', 'push_keys.json');
    expect(generated(underFile)).toThrow(`push key file ${underFile} (in persistence-dir) cannot be read (ENOTDIR: not a directory)`);
    const folderNamed = join(dir, 'push_keys.json');
    await mkdir(folderNamed);
    expect(generated(folderNamed)).toThrow(/^push key file .*push_keys\.json \(in persistence-dir\) cannot be read \(EISDIR: /);
    // A relative persistence-dir is named in full too.
    expect(generated(relative(process.cwd(), underFile))).toThrow(`push key file ${underFile} (in persistence-dir)`);
  });

  it('a malformed one is said to be, without quoting its content (key material)', async () => {
    const path = join(await folder(), 'push_keys.json');
    await writeFile(path, '{"activeKeyId":"k","keys":[{"id":"k","key":"S3CRETKEYMATERIAL');
    expect(generated(path)).toThrow(`push key file ${path} (in persistence-dir) is malformed: not the JSON key file the gateway writes`);
    expect(generated(path)).not.toThrow(/S3CRET/);
  });

  it('checkKeyRing finds what the ring would refuse, creating nothing', async () => {
    const dir = await folder();
    const path = join(dir, 'state', 'push_keys.json');
    expect(() => checkKeyRing(['k1:c2hvcnRTRUNSRVQ='], path)).toThrow("push-keys entry #1 ('k1'): the key must be 32 bytes, base64-encoded");
    expect(() => checkKeyRing([], path)).not.toThrow();
    await expect(stat(join(dir, 'state'))).rejects.toMatchObject({ code: 'ENOENT' });
    generated(path)();
    expect(() => checkKeyRing([], path)).not.toThrow();
    await writeFile(path, 'not json');
    expect(() => checkKeyRing([], path)).toThrow(/is malformed/);
  });
});

describe('config sealing', () => {
  const ring = createKeyRing([`k:${key()}`]);
  const config = {
    taskId: 'task-1',
    id: 'webhook-1',
    url: 'https://hooks.example.com/a2a',
    token: 'notification-token',
    authentication: { scheme: 'bearer', credentials: 'callback-token' },
  };

  it('removes secrets from the stored form and restores them', () => {
    const stored = sealConfig(ring, config);
    const text = JSON.stringify(stored);
    expect(text).not.toContain('notification-token');
    expect(text).not.toContain('callback-token');
    expect(stored.config).toEqual({ taskId: 'task-1', id: 'webhook-1', url: config.url, authentication: { scheme: 'bearer' } });
    expect(openConfig(ring, stored)).toEqual(config);
  });

  it('binds secrets to their config: a token copied into another config does not open', () => {
    const stored = sealConfig(ring, config);
    const other = sealConfig(ring, { ...config, id: 'webhook-2' });
    expect(() => openConfig(ring, { ...other, sealed: { ...other.sealed, token: stored.sealed.token } })).toThrow(/failed authentication/);
  });

  it('masks secrets for reads', () => {
    expect(maskConfig(config)).toEqual({ ...config, token: '****', authentication: { scheme: 'bearer', credentials: '****' } });
    expect(maskConfig({ url: config.url })).toEqual({ url: config.url });
    expect(config.token).toBe('notification-token');
  });
});
