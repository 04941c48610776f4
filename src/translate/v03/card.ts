import { withFields, type AgentCard, type AgentInterface, type SecurityRequirement } from '../../model/index.js';
import type { V03RestAgentCard } from '../../protocol/v03/rest.js';
import { cardFromV025 } from '../v025/index.js';
import { defined, isRecord } from '../common.js';

type V03Security = NonNullable<V03RestAgentCard['security']>[number];

const requirementFromV03 = (security: V03Security): SecurityRequirement => ({ schemes: security.schemes ?? {} });

/**
 * The proto AgentCard of `GET /v1/card` → 1.0. Everything but security reads like the 0.3 JSON
 * card (cardFromV025 maps it); proto security schemes and `Security` requirements already have
 * the 1.0 shape and are kept as they are.
 */
export function cardFromV03Rest(card: V03RestAgentCard): AgentCard {
  const { securitySchemes, security, skills, ...rest } = card;
  const base = cardFromV025(withFields(rest, { skills: skills.map(({ security: _, ...skill }) => skill) }));
  return defined(
    withFields(base, {
      securitySchemes,
      securityRequirements: security?.map(requirementFromV03),
      skills: base.skills.map((skill, index) =>
        defined(withFields(skill, { securityRequirements: skills[index]?.security?.map(requirementFromV03) })),
      ),
    }),
  );
}

/** The top-level fields through which a 0.2.5/0.3 card names its interfaces (1.0 lists them in `supportedInterfaces`). */
export const V03_CARD_INTERFACE_FIELDS = ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces'] as const;

export interface V03CardInterface {
  url: string;
  transport: string;
}

/**
 * The 0.3 top-level fields iac-code appends to its 1.0 card, written from the 1.0 interfaces: the
 * first (JSON-RPC) as `url` and `preferredTransport`, the others as `additionalInterfaces`.
 */
export function v03CardFields([primary, ...others]: readonly [AgentInterface, ...AgentInterface[]]): {
  url: string;
  preferredTransport: string;
  protocolVersion: string;
  additionalInterfaces: V03CardInterface[];
} {
  return {
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    protocolVersion: '1.0',
    additionalInterfaces: others.map((entry) => ({ url: entry.url, transport: entry.protocolBinding })),
  };
}

/** A transport (0.3) or protocol binding (1.0) name as compared: trimmed, upper-cased; '' when not a string. */
export const transportName = (value: unknown): string => (typeof value === 'string' ? value.trim().toUpperCase() : '');

/**
 * The other way, read from a card not yet validated (detection reads it before it knows the version):
 * `url` with `preferredTransport` (0.3's default JSONRPC), then `additionalInterfaces`, transport
 * names upper-cased; entries without a string `url` are skipped.
 */
export function interfacesFromV03CardFields(card: Readonly<Record<string, unknown>>): V03CardInterface[] {
  const main = typeof card.url === 'string' ? [{ url: card.url, transport: transportName(card.preferredTransport) || 'JSONRPC' }] : [];
  const more = Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces.filter(isRecord) : [];
  return [
    ...main,
    ...more
      .filter((entry) => typeof entry.url === 'string')
      .map((entry) => ({ url: entry.url as string, transport: transportName(entry.transport) })),
  ];
}
