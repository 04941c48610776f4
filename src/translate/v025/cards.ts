import type { AgentCard, AgentInterface, AgentSkill } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025AgentCard, V025AgentExtension, V025AgentSkill } from '../../protocol/v025/index.js';
import { defined } from '../common.js';
import { securitySchemeToV1, securityToV1 } from './security.js';

export interface SkillOverride {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
}

export interface CardToV025Options {
  /** The facade's own endpoint (Bailian appends `/stream` for message/stream). */
  url: string;
  profile: MappingProfile;
  /** Operator-chosen identity (config bailian.card); wins over the upstream card's. */
  overrides?: { name?: string; description?: string; version?: string; skills?: SkillOverride[] };
  /** Set when a facade API key is configured: advertises apiKey in this header (Bailian sends `X-API-KEY`). */
  apiKeyHeader?: string;
  /** capabilities.extensions of the facade, e.g. Bailian's protocol extension. Default: none. */
  extensions?: V025AgentExtension[];
  /** Whether the facade serves 0.2.5 push config methods. Default: the upstream's capability. */
  pushNotifications?: boolean;
  /** Whether the facade serves the authenticated extended card. Default: not advertised. */
  extendedCard?: boolean;
}

/** Bailian accepts only text/plain input and output. */
const TEXT_ONLY = ['text/plain'];

export function skillToV025(skill: AgentSkill | SkillOverride, defaultTag: string): V025AgentSkill {
  const tags = skill.tags.map((tag) => tag.trim()).filter((tag) => tag !== '');
  const name = skill.name || skill.id;
  return defined({
    id: skill.id,
    name,
    description: skill.description || name,
    tags: tags.length > 0 ? tags : [defaultTag],
    examples: skill.examples && skill.examples.length > 0 ? [...skill.examples] : undefined,
  });
}

/** The gateway's own auth on a facade card: the apiKey scheme in `apiKeyHeader`, or none. Never the upstream's schemes. */
export function facadeSecurity(apiKeyHeader: string | undefined): Pick<V025AgentCard, 'securitySchemes' | 'security'> {
  if (!apiKeyHeader) return { security: [] };
  return { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: apiKeyHeader } }, security: [{ apiKey: [] }] };
}

/**
 * The facade's 0.2.5 card, built from the upstream's 1.0 card. It describes the GATEWAY: its url,
 * its auth (never the upstream's schemes), text/plain modes, skills with non-empty tags (at least
 * one skill), `stateTransitionHistory: false`, and no signatures (they would not verify).
 */
export function cardToV025(card: AgentCard, options: CardToV025Options): V025AgentCard {
  const { overrides = {}, profile } = options;
  const name = overrides.name ?? card.name;
  const description = overrides.description ?? card.description;
  const defaultTag = profile.options.defaultSkillTag;
  const upstreamSkills: (AgentSkill | SkillOverride)[] = overrides.skills ?? card.skills;
  const skills = upstreamSkills.length > 0 ? upstreamSkills : [{ id: 'default', name, description, tags: [] }];
  return defined({
    protocolVersion: '0.2.5',
    name,
    description,
    url: options.url,
    preferredTransport: 'JSONRPC',
    provider: card.provider?.url ? { organization: card.provider.organization, url: card.provider.url } : undefined,
    iconUrl: card.iconUrl,
    documentationUrl: card.documentationUrl,
    version: overrides.version ?? card.version,
    capabilities: {
      streaming: true,
      pushNotifications: options.pushNotifications ?? card.capabilities.pushNotifications ?? false,
      stateTransitionHistory: false,
      extensions: options.extensions ?? [],
    },
    ...facadeSecurity(options.apiKeyHeader),
    defaultInputModes: [...TEXT_ONLY],
    defaultOutputModes: [...TEXT_ONLY],
    skills: skills.map((skill) => skillToV025(skill, defaultTag)),
    supportsAuthenticatedExtendedCard: options.extendedCard,
  });
}

/** `url` + `preferredTransport` first, then `additionalInterfaces` (minus a repeat of the main one). */
function interfacesOf(card: V025AgentCard): AgentInterface[] {
  const protocolVersion = card.protocolVersion ?? '0.2.5';
  const main = { url: card.url, protocolBinding: card.preferredTransport ?? 'JSONRPC', protocolVersion };
  const more = (card.additionalInterfaces ?? [])
    .filter((entry) => !(entry.url === main.url && entry.transport === main.protocolBinding))
    .map((entry) => ({ url: entry.url, protocolBinding: entry.transport, protocolVersion }));
  return [main, ...more];
}

/**
 * A 0.2.5 upstream's card → the 1.0 model. Interfaces keep the upstream's own protocol version,
 * because they describe where and how the upstream itself is reached.
 */
export function cardFromV025(card: V025AgentCard): AgentCard {
  const { capabilities } = card;
  return defined({
    name: card.name,
    description: card.description,
    supportedInterfaces: interfacesOf(card),
    provider: card.provider ? defined({ organization: card.provider.organization, url: card.provider.url }) : undefined,
    version: card.version,
    documentationUrl: card.documentationUrl,
    iconUrl: card.iconUrl,
    capabilities: defined({
      streaming: capabilities.streaming,
      pushNotifications: capabilities.pushNotifications,
      extendedAgentCard: card.supportsAuthenticatedExtendedCard,
      extensions: capabilities.extensions?.map((extension) => defined({ ...extension })),
    }),
    securitySchemes: card.securitySchemes
      ? Object.fromEntries(Object.entries(card.securitySchemes).map(([name, scheme]) => [name, securitySchemeToV1(scheme)]))
      : undefined,
    securityRequirements: card.security ? securityToV1(card.security) : undefined,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) =>
      defined({
        id: skill.id,
        name: skill.name,
        description: skill.description,
        tags: skill.tags,
        examples: skill.examples,
        inputModes: skill.inputModes,
        outputModes: skill.outputModes,
        securityRequirements: skill.security ? securityToV1(skill.security) : undefined,
      }),
    ),
  });
}
