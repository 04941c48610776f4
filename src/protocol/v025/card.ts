import { z } from 'zod';
import { V025JsonObject } from './parts.js';
import { V03_AGENT_CARD_ADDITIONS, V03_AGENT_SKILL_ADDITIONS, V03MutualTlsSecurityScheme } from '../v03/jsonrpc.js';

/** Where a 0.2.5 agent serves its card (0.3 moved it: protocol/v03/jsonrpc.ts). */
export const V025_AGENT_CARD_PATH = '/.well-known/agent.json';

const Description = { description: z.string().optional() };

export const V025ApiKeySecurityScheme = z.looseObject({
  type: z.literal('apiKey'),
  in: z.enum(['query', 'header', 'cookie']),
  name: z.string(),
  ...Description,
});
export const V025HttpAuthSecurityScheme = z.looseObject({
  type: z.literal('http'),
  scheme: z.string(),
  bearerFormat: z.string().optional(),
  ...Description,
});
const OAuthFlow = z.looseObject({
  authorizationUrl: z.string().optional(),
  tokenUrl: z.string().optional(),
  refreshUrl: z.string().optional(),
  scopes: z.record(z.string(), z.string()).optional(),
});
export const V025OAuthFlows = z.looseObject({
  authorizationCode: OAuthFlow.optional(),
  clientCredentials: OAuthFlow.optional(),
  implicit: OAuthFlow.optional(),
  password: OAuthFlow.optional(),
});
export type V025OAuthFlows = z.infer<typeof V025OAuthFlows>;
export const V025OAuth2SecurityScheme = z.looseObject({
  type: z.literal('oauth2'),
  flows: V025OAuthFlows,
  ...Description,
});
export const V025OpenIdConnectSecurityScheme = z.looseObject({
  type: z.literal('openIdConnect'),
  openIdConnectUrl: z.string(),
  ...Description,
});
export const V025SecurityScheme = z.discriminatedUnion('type', [
  V025ApiKeySecurityScheme,
  V025HttpAuthSecurityScheme,
  V025OAuth2SecurityScheme,
  V025OpenIdConnectSecurityScheme,
  // 0.3's, read by the same schema (protocol/v03/jsonrpc.ts).
  V03MutualTlsSecurityScheme,
]);
export type V025SecurityScheme = z.infer<typeof V025SecurityScheme>;

export const V025AgentExtension = z.looseObject({
  uri: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: V025JsonObject.optional(),
});
export type V025AgentExtension = z.infer<typeof V025AgentExtension>;

export const V025AgentCapabilities = z.looseObject({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  stateTransitionHistory: z.boolean().optional(),
  extensions: z.array(V025AgentExtension).optional(),
});
export type V025AgentCapabilities = z.infer<typeof V025AgentCapabilities>;

export const V025AgentSkill = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
  // 0.3's per-skill security, read by the same schema.
  ...V03_AGENT_SKILL_ADDITIONS,
});
export type V025AgentSkill = z.infer<typeof V025AgentSkill>;

export const V025AgentInterface = z.looseObject({ url: z.string(), transport: z.string() });
export type V025AgentInterface = z.infer<typeof V025AgentInterface>;

export const V025AgentCard = z.looseObject({
  /** Required by the 0.2.5 spec; the a2a-js 0.2.5 SDK's cards lack it, so tolerate its absence. */
  protocolVersion: z.string().optional(),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(V025AgentInterface).optional(),
  iconUrl: z.string().optional(),
  /** 0.2.5 requires provider.url; cards in the wild omit it. */
  provider: z.looseObject({ organization: z.string(), url: z.string().optional() }).optional(),
  version: z.string(),
  documentationUrl: z.string().optional(),
  capabilities: V025AgentCapabilities,
  securitySchemes: z.record(z.string(), V025SecurityScheme).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(V025AgentSkill),
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
  // 0.3's signatures, read by the same schema.
  ...V03_AGENT_CARD_ADDITIONS,
});
export type V025AgentCard = z.infer<typeof V025AgentCard>;
