import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../config/config-error.js';
import type { GatewayConfig } from '../config/schema.js';
import { errnoText } from '../errno-text.js';

/**
 * What the gateway keeps files in `persistence-dir` for, and which it cannot do without. Push (its key file, config
 * store, queue and journals; with `store: redis` its held notifications, push-held/) needs the folder: the start
 * checks it (checkPersistenceDir). The facade's cut-turn notes without Redis are kept there too, best effort.
 */
const needsPersistenceDir = (config: GatewayConfig): boolean => config['push-notifications'];
export const keepsFilesInPersistenceDir = (config: GatewayConfig): boolean =>
  needsPersistenceDir(config) || (config.bailian.enabled && config.store !== 'redis');

/**
 * Checks, creating nothing, that `persistence-dir` can hold the gateway's files: the folder, or the
 * nearest folder above it that exists, is a folder the gateway may write to. A problem names the
 * setting, the full path and the errno (`persistence-dir /srv/state cannot be used (ENOTDIR: not a
 * directory)`), rather than the first file that could then not be written.
 */
export async function checkPersistenceDir(config: GatewayConfig): Promise<void> {
  if (!needsPersistenceDir(config)) return;
  const dir = resolve(config['persistence-dir']);
  let at = dir;
  let found = await stat(at).catch((error: NodeJS.ErrnoException) => error);
  while (found instanceof Error && found.code === 'ENOENT' && dirname(at) !== at) {
    at = dirname(at);
    found = await stat(at).catch((error: NodeJS.ErrnoException) => error);
  }
  const problem =
    found instanceof Error
      ? errnoText(found)
      : !found.isDirectory()
        ? 'ENOTDIR: not a directory'
        : await access(at, constants.W_OK | constants.X_OK).then(() => undefined, errnoText);
  if (problem) throw new ConfigError(`persistence-dir ${dir} cannot be used (${at === dir ? '' : `${at}: `}${problem})`);
}
