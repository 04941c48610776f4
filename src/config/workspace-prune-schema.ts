import { z } from 'zod';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * `upstream.workspace-prune`: the conversation folders below `upstream.workspace-root` that nothing
 * was written to for `idle-after-ms` are removed, every `every-ms` (upstream/iac-code/workspace-pruner.ts).
 * On with these defaults whenever `workspace-root` is set; `idle-after-ms: 0` turns it off.
 *
 * Seven days, as `tasks.context-owner-ttl-ms`: a folder belongs to a context id, not to a caller, so a
 * folder kept longer than the gateway remembers its conversation's owner would be handed, files and all,
 * to another caller who names that context id. Not below an hour: a folder must outlive any turn in it.
 */
export const WorkspacePruneConfig = z.strictObject({
  'idle-after-ms': z
    .number()
    .int()
    .refine((ms) => ms === 0 || ms >= HOUR, 'must be 0 (off) or at least 3600000 (an hour): a folder must outlive any turn in it')
    .default(7 * DAY),
  'every-ms': z.number().int().min(1_000, 'must be at least 1000 (a second)').max(DAY, 'must be at most 86400000 (a day)').default(HOUR),
});
export type WorkspacePruneConfig = z.infer<typeof WorkspacePruneConfig>;

interface WorkspaceSettings {
  'workspace-root'?: string | undefined;
  'workspace-prune'?: WorkspacePruneConfig | undefined;
}

/** `workspace-prune` acts only on `workspace-root`'s folders: set without one, it is refused, not ignored. */
export function checkWorkspacePrune(upstream: WorkspaceSettings, ctx: z.RefinementCtx): void {
  if (upstream['workspace-prune'] && !upstream['workspace-root']) {
    ctx.addIssue({
      code: 'custom',
      path: ['workspace-prune'],
      message: 'needs upstream.workspace-root (it removes the idle conversation folders below it)',
    });
  }
}

/** The pruning in force: `workspace-prune` as set, else its defaults whenever `workspace-root` is set; undefined when off. */
export function workspacePruning(upstream: WorkspaceSettings): { root: string; idleAfterMs: number; everyMs: number } | undefined {
  const root = upstream['workspace-root'];
  if (!root) return undefined;
  const prune = upstream['workspace-prune'] ?? WorkspacePruneConfig.parse({});
  if (prune['idle-after-ms'] === 0) return undefined;
  return { root, idleAfterMs: prune['idle-after-ms'], everyMs: prune['every-ms'] };
}
