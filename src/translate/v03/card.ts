import type { AgentCard, AgentInterface, SecurityRequirement } from '../../model/index.js';
import type { V03RestAgentCard } from '../../protocol/v03/rest.js';
import { cardFromV025 } from '../v025/index.js';
import { defined } from '../common.js';

type V03Security = NonNullable<V03RestAgentCard['security']>[number];

const requirementFromV03 = (security: V03Security): SecurityRequirement => ({ schemes: security.schemes ?? {} });

/**
 * The proto AgentCard of `GET /v1/card` → 1.0. Everything but security reads like the 0.3 JSON
 * card (cardFromV025 maps it); proto security schemes and `Security` requirements already have
 * the 1.0 shape and are kept as they are.
 */
export function cardFromV03Rest(card: V03RestAgentCard): AgentCard {
  const { securitySchemes, security, skills, ...rest } = card;
  const base = cardFromV025({ ...rest, skills: skills.map(({ security: _, ...skill }) => skill) });
  return defined({
    ...base,
    securitySchemes,
    securityRequirements: security?.map(requirementFromV03),
    skills: base.skills.map((skill, index) => defined({ ...skill, securityRequirements: skills[index]?.security?.map(requirementFromV03) })),
  });
}

/**
 * The 0.3 top-level fields iac-code appends to its 1.0 card, written from the 1.0 interfaces: the
 * first (JSON-RPC) as `url` and `preferredTransport`, the others as `additionalInterfaces`.
 */
export function v03CardFields([primary, ...others]: readonly [AgentInterface, ...AgentInterface[]]): {
  url: string;
  preferredTransport: string;
  protocolVersion: string;
  additionalInterfaces: Array<{ url: string; transport: string }>;
} {
  return {
    url: primary.url,
    preferredTransport: primary.protocolBinding,
    protocolVersion: '1.0',
    additionalInterfaces: others.map((entry) => ({ url: entry.url, transport: entry.protocolBinding })),
  };
}
