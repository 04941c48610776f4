import { randomUUID } from 'node:crypto';
import type { Artifact } from '../../model/index.js';
import { systemClock } from '../../translate/index.js';
import type { V025FacadeDeps } from './deps.js';
import type { ReplyOptions } from './reply/index.js';

/** The reply reducer's options for one turn: the profile's shape, the operator's overrides, the task's earlier artifacts and the caller's id for it. */
export function replyOptions(deps: V025FacadeDeps, earlierArtifacts?: readonly Artifact[], taskId?: string): ReplyOptions {
  const { bailian } = deps.options;
  const { options } = deps.profile;
  return {
    profile: deps.profile,
    upstreamMetadata: bailian['upstream-metadata'],
    renderParts: bailian['render-parts'] ?? options.renderParts,
    replyArtifacts: options.replyArtifacts,
    inlineMaxBytes: bailian['inline-max-bytes'],
    deviceCommandsKey: bailian['extension-metadata-key'],
    ...(earlierArtifacts ? { earlierArtifacts } : {}),
    ...(taskId ? { taskId } : {}),
    newId: randomUUID,
    now: systemClock,
  };
}
