import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/config/schema.js';
import { checkPersistenceDir } from '../../src/start/persistence-dir.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-persistence-'));
  await writeFile(join(dir, 'afile'), '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = (persistenceDir: string, push = true) => ({ 'persistence-dir': persistenceDir, 'push-notifications': push }) as GatewayConfig;

describe('checkPersistenceDir', () => {
  it('names the setting, the full path and the errno of a folder that cannot be one', async () => {
    const under = join(dir, 'afile', 'sub');
    await expect(checkPersistenceDir(config(relative(process.cwd(), under)))).rejects.toThrow(
      `persistence-dir ${under} cannot be used (ENOTDIR: not a directory)`,
    );
    await expect(checkPersistenceDir(config(join(dir, 'afile')))).rejects.toThrow(
      `persistence-dir ${join(dir, 'afile')} cannot be used (ENOTDIR: not a directory)`,
    );
  });

  it('takes a folder yet to be made below a writable one, and makes nothing', async () => {
    await checkPersistenceDir(config(join(dir, 'state', 'deeper')));
    await expect(stat(join(dir, 'state'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('is not checked when nothing the start runs keeps files there', async () => {
    await checkPersistenceDir(config(join(dir, 'afile', 'sub'), false));
  });
});
