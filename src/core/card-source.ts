import type { AgentCard } from '../model/index.js';

/** The upstream card as last fetched; refreshed in the background, never per request. */
export interface CardSnapshot {
  card: AgentCard;
  fetchedAt: Date;
}

export interface CardSource {
  /** The last good card, or undefined before the first successful fetch. */
  current(): CardSnapshot | undefined;
  /** Whether the most recent refresh reached the upstream. */
  upstreamReachable(): boolean;
  /** Whether the most recent refresh failed because the agent refused the gateway's credentials (HTTP 401/403). */
  upstreamRefusedCredentials?(): boolean;
  /** Called after each refresh that changed the card. */
  onChange(listener: (snapshot: CardSnapshot) => void): void;
}
