/**
 * Whether a failed read (the config store, the registry, the task aliases) failed because Redis could
 * not be asked or could not answer yet, so asking again later may well succeed. Anything else (a config
 * sealed under a key this replica lacks, a record it cannot parse, a Redis that refuses the command) is
 * not: holding such a change would only hold up every change queued behind it.
 */
export function isOutOfReach(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // ioredis gave the command up after its reconnections, or no node of a cluster answered.
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'ClusterAllFailedError') return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  // A Redis that is up but not ready: restarting (LOADING), just demoted or without a primary (failover).
  if (error.name === 'ReplyError') return TRANSIENT_REPLIES.test(error.message);
  return CONNECTION_MESSAGES.some((start) => error.message.startsWith(start));
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

const TRANSIENT_REPLIES = /^(LOADING|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|BUSY)\b/;

/** ioredis's own errors for a connection that is gone, closed, or did not answer in time. */
const CONNECTION_MESSAGES = [
  'Connection is closed',
  'Command timed out',
  "Stream isn't writeable",
  'Socket timeout',
  'connect ETIMEDOUT',
  'All sentinels are unreachable',
  'Failed to refresh slots cache',
];
