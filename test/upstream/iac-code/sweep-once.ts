/**
 * One sweep of the workspace pruner in a process of its own, so that a test can run it as a user that
 * may not remove what it finds (the tests run as root here, and root may remove anything):
 * `node --import tsx sweep-once.ts <root> <idle-after-ms>` prints `{ result, logs }` as JSON.
 */
import { createWorkspacePruner } from '../../../src/upstream/iac-code/workspace-pruner.js';

const [root, idleAfterMs] = process.argv.slice(2);
const logs: Array<{ level: string; fields: object; message: string }> = [];
const log = (level: string) => (fields: object, message: string) => logs.push({ level, fields, message });
const pruner = createWorkspacePruner({
  root: root!,
  idleAfterMs: Number(idleAfterMs),
  everyMs: 60_000,
  logger: { info: log('info'), warn: log('warn'), debug: log('debug') } as never,
});
const result = await pruner.sweep();
process.stdout.write(JSON.stringify({ result, logs }));
