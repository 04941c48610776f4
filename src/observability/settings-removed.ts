/**
 * Turns whose per-turn iac-code settings `upstream.caller-settings` took keys out of, counted
 * process-wide by the caller's surface, like image-fetches.ts: the log names the keys at most once a
 * minute, this counts every turn, so an operator sees how often clients expected a setting to hold.
 */
const counts = new Map<string, number>();

export function noteSettingsRemoved(surface: string): void {
  counts.set(surface, (counts.get(surface) ?? 0) + 1);
}

export const settingsRemovedCounts = (): ReadonlyMap<string, number> => counts;
