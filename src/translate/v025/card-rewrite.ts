import type { V025AgentCard } from '../../protocol/v025/index.js';
import { facadeSecurity, skillToV025, type CardToV025Options } from './cards.js';
import { defined } from '../common.js';
import { withFields } from '../../model/index.js';

export interface V025CardRewriteOptions {
  /** The facade's own endpoint. */
  url: string;
  /** Operator-chosen identity (config bailian.card); wins over the agent's. */
  overrides?: CardToV025Options['overrides'];
  /** Set when a facade API key is configured: advertises apiKey in this header. */
  apiKeyHeader?: string;
  /** Tag for an override skill whose tags are all blank. */
  defaultSkillTag: string;
  /** false when the facade refuses push config calls: the agent's capability is then hidden. */
  pushNotifications?: boolean;
}

/**
 * A 0.2.5 (or 0.3) agent's own card, served by a facade that relays its calls untranslated: the same
 * card, except what describes how to reach and trust it, which is the GATEWAY's now. `url` becomes
 * the facade's, other interfaces go (they name the agent), security becomes the facade's (skills lose
 * theirs: it named the agent's schemes), signatures go (they would not verify), the extended card is
 * not advertised (the facade serves 0.2.5's HTTP route for it where it translates, not where it relays:
 * surfaces/v025/card.ts), and the operator's overrides apply.
 */
export function rewriteV025Card(card: V025AgentCard, options: V025CardRewriteOptions): V025AgentCard {
  const {
    signatures: _signatures,
    additionalInterfaces: _interfaces,
    securitySchemes: _schemes,
    security: _security,
    supportsAuthenticatedExtendedCard: _extended,
    ...kept
  } = card;
  const { overrides = {} } = options;
  return defined(
    withFields(kept, {
      name: overrides.name ?? card.name,
      description: overrides.description ?? card.description,
      version: overrides.version ?? card.version,
      url: options.url,
      preferredTransport: card.preferredTransport === undefined ? undefined : 'JSONRPC',
      capabilities: options.pushNotifications === false ? withFields(card.capabilities, { pushNotifications: false }) : card.capabilities,
      ...facadeSecurity(options.apiKeyHeader),
      skills: overrides.skills
        ? overrides.skills.map((skill) => skillToV025(skill, options.defaultSkillTag))
        : card.skills.map(({ security: _skillSecurity, ...skill }) => skill),
    }),
  );
}
