/**
 * How long a context's owner is remembered after its last task began: `context-owner-ttl-ms`, but never
 * less than the tasks themselves live (`idle-ttl-ms`), and forever when tasks never expire (0). The
 * owner outlives the context's tasks because the agent keeps the conversation (iac-code persists its
 * contexts): a caller who names a forgotten context would continue another caller's conversation.
 */
export function contextOwnerTtl(idleTtlMs: number, contextOwnerTtlMs: number | undefined): number {
  if (idleTtlMs <= 0) return 0;
  return Math.max(idleTtlMs, contextOwnerTtlMs ?? 0);
}
