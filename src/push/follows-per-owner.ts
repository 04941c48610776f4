import type { PushLogger } from './queue/types.js';

/** `push-follow-max-per-owner` when unset: a quarter of `push-follow-max`, at least one. */
export const defaultFollowsPerOwner = (maxFollowed: number): number => Math.max(1, Math.floor(maxFollowed / 4));

/**
 * The follows running per caller (principal), against the cap on one caller's (0: none), so one key
 * cannot take every follow of the replica (`push-follow-max`) and leave others' turn ends unpushed.
 */
export function followsPerOwner(max: number, logger: PushLogger) {
  const counts = new Map<string, number>();
  return {
    /** Whether the caller already has its share: then this turn's end is not pushed, which the operator is told. */
    refuses({ taskId, principal }: { taskId: string; principal: string }): boolean {
      if (max <= 0 || (counts.get(principal) ?? 0) < max) return false;
      logger.warn(
        { taskId, maxFollowedPerOwner: max },
        'push follow: its caller has push-follow-max-per-owner tasks followed already; the end of this turn is not pushed',
      );
      return true;
    },
    started: (principal: string) => void counts.set(principal, (counts.get(principal) ?? 0) + 1),
    ended(principal: string) {
      const left = (counts.get(principal) ?? 0) - 1;
      if (left > 0) counts.set(principal, left);
      else counts.delete(principal);
    },
  };
}
