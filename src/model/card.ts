import { z } from 'zod';
import { JsonObject } from './parts.js';

export const AgentInterface = z.looseObject({
  url: z.string(),
  protocolBinding: z.string(),
  protocolVersion: z.string().optional(),
  tenant: z.string().optional(),
});
export type AgentInterface = z.infer<typeof AgentInterface>;

export const AgentExtension = z.looseObject({
  uri: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: JsonObject.optional(),
});
export type AgentExtension = z.infer<typeof AgentExtension>;

export const AgentSkill = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
  securityRequirements: z.array(z.unknown()).optional(),
});
export type AgentSkill = z.infer<typeof AgentSkill>;

export const AgentCapabilities = z.looseObject({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  extendedAgentCard: z.boolean().optional(),
  extensions: z.array(AgentExtension).optional(),
});

/** 1.0 security scheme: a oneof rendered as a single key (ProtoJSON). */
export const SecurityScheme = z.record(z.string(), z.unknown());
export const SecurityRequirement = z.looseObject({
  schemes: z.record(z.string(), z.looseObject({ list: z.array(z.string()).optional() })),
});
export type SecurityRequirement = z.infer<typeof SecurityRequirement>;

export const AgentCard = z.looseObject({
  name: z.string(),
  description: z.string(),
  supportedInterfaces: z.array(AgentInterface).min(1),
  provider: z.looseObject({ organization: z.string(), url: z.string().optional() }).optional(),
  version: z.string(),
  documentationUrl: z.string().optional(),
  iconUrl: z.string().optional(),
  capabilities: AgentCapabilities,
  securitySchemes: z.record(z.string(), SecurityScheme).optional(),
  securityRequirements: z.array(SecurityRequirement).optional(),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkill),
  signatures: z.array(z.unknown()).optional(),
});
export type AgentCard = z.infer<typeof AgentCard>;
