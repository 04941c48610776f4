import type { Logger } from 'pino';
import type { CardVerificationConfig } from '../config/card-verification-schema.js';
import type { CardFetcher } from '../core/card-refresher.js';
import type { AgentCard } from '../model/index.js';
import type { KeySource } from './upstream-keys.js';
import { verifyCardSignatures, type VerificationResult } from './verify-card.js';

/** Thrown (and logged by the card refresher) when `required: true` refuses a card. */
export class CardNotVerifiedError extends Error {
  override name = 'CardNotVerifiedError';
}

/**
 * The upstream's card, verified before anyone sees it (the card is cached, so checking it after would
 * let a forged one be served). Under `required: true` a card that does not verify is a failed
 * refresh: `/ready` answers 503 and the card is not served (until then, or the last good one stays).
 * Otherwise it is served with a warning, logged when the outcome changes, not on every refresh.
 */
export function verifiedCards(
  source: CardFetcher,
  config: CardVerificationConfig,
  keys: KeySource,
  logger?: Logger,
  /** Told every check's outcome (the card-verification metric). */
  onResult?: (result: VerificationResult) => void,
): CardFetcher & { verified(): boolean } {
  let lastLogged: string | undefined;
  let verified = false;

  function report(result: VerificationResult): void {
    const summary = result.valid ? `valid:${result.kid ?? ''}` : result.reason;
    if (summary === lastLogged) return;
    lastLogged = summary;
    if (result.valid) {
      logger?.info({ kid: result.kid, alg: result.alg }, 'upstream agent card signature verified');
    } else if (config.required) {
      logger?.error(
        { reason: result.reason },
        'upstream agent card signature does not verify: not serving the upstream (upstream.card-verification.required)',
      );
    } else {
      logger?.warn({ reason: result.reason }, 'upstream agent card signature does not verify: serving it anyway (required: false)');
    }
  }

  return {
    async fetchCard(signal?: AbortSignal): Promise<AgentCard> {
      const card = await source.fetchCard(signal);
      const result = await verifyCardSignatures(card, keys);
      verified = result.valid;
      onResult?.(result);
      report(result);
      if (!result.valid && config.required) throw new CardNotVerifiedError(`upstream agent card signature does not verify (${result.reason})`);
      return card;
    },
    /** Whether the card fetched last verified. */
    verified: () => verified,
  };
}
