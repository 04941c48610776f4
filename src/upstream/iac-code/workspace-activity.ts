import { mkdir, writeFile } from 'node:fs/promises';
import { basename, posix } from 'node:path';
import type { Logger } from 'pino';

/**
 * The folder below the workspace root where the gateway notes, per conversation folder, when its last
 * turn began: an empty file named as the folder (`<root>/.a2a-bridge-activity/ctx-<hex>`), its mtime the
 * turn's start. A turn that picks up a conversation idle for days reads its old files before it writes
 * anything, and the folder's own times do not show it; this file does, to the pruner of every replica
 * that shares the volume (workspace-pruner.ts). A dot name that never matches a conversation folder.
 */
export const ACTIVITY_FOLDER = '.a2a-bridge-activity';

export interface WorkspaceActivity {
  /**
   * A turn begins in `folder` (one `workspaceOf` names): noted before the turn goes on, on the volume
   * and in this process. The returned function ends it. Never fails: a note that cannot be written
   * leaves only this process's own record.
   */
  begin(folder: string): Promise<() => void>;
  /** Whether a turn of this process is running in the conversation folder called `name` (`ctx-<hex>`). */
  busy(name: string): boolean;
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

export function createWorkspaceActivity(root: string, logger?: Pick<Logger, 'warn'>): WorkspaceActivity {
  const running = new Map<string, number>();
  const notes = posix.join(root, ACTIVITY_FOLDER);
  let warned = false;

  function failed(error: unknown): void {
    // No root here: this gateway sees no folders (and prunes none); nothing to protect.
    if (errorCode(error) === 'ENOENT' || warned) return;
    warned = true;
    logger?.warn(
      { err: error instanceof Error ? error.message : String(error), folder: notes },
      'cannot note workspace activity: the pruner of another replica may take the folder of a conversation picked up after its idle time',
    );
  }

  async function note(name: string): Promise<void> {
    const file = posix.join(notes, name);
    try {
      await writeFile(file, '');
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') return failed(error);
      // The notes' folder, never the root: a root that is not there is not this gateway's to make.
      await mkdir(notes)
        .catch((made: unknown) => {
          if (errorCode(made) !== 'EEXIST') throw made;
        })
        .then(() => writeFile(file, ''))
        .catch(failed);
    }
  }

  return {
    async begin(folder) {
      const name = basename(folder);
      running.set(name, (running.get(name) ?? 0) + 1);
      await note(name);
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        const left = (running.get(name) ?? 1) - 1;
        if (left > 0) running.set(name, left);
        else running.delete(name);
      };
    },
    busy: (name) => running.has(name),
  };
}
