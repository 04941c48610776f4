import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/schema.js';
import { workspacePruning } from '../../config/workspace-prune-schema.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { createWorkspaceActivity, type WorkspaceActivity } from './workspace-activity.js';
import { createWorkspacePruner } from './workspace-pruner.js';

/**
 * With `upstream.workspace-prune` in force (workspace-prune-schema.ts), idle conversation folders are
 * removed in the background until the gateway stops; the turns' starts are noted so that no replica
 * prunes a folder a turn just picked up again (the activity returned).
 */
export function startWorkspacePruning(
  config: GatewayConfig,
  logger: Logger,
  metrics: GatewayMetrics | undefined,
  cleanups: Array<() => Promise<void>>,
): WorkspaceActivity | undefined {
  const pruning = workspacePruning(config.upstream);
  if (!pruning) return undefined;
  const activity = createWorkspaceActivity(pruning.root, logger);
  const pruner = createWorkspacePruner({
    root: pruning.root,
    idleAfterMs: pruning.idleAfterMs,
    everyMs: pruning.everyMs,
    logger,
    activity,
    ...(metrics ? { onSweep: metrics.workspaceSweep } : {}),
  });
  pruner.start();
  cleanups.push(() => pruner.stop());
  return activity;
}
