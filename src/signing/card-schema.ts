import { isRecord } from '../model/json.js';

/**
 * The A2A 1.0 AgentCard as its protobuf schema sees it, for signing. Both official SDKs canonicalize
 * a card by reading it into the proto message first (a2a-js: AgentCard.fromJSON/toJSON; a2a-python:
 * MessageToDict), so a field the schema does not know (the 0.3 top-level `url`, `preferredTransport`,
 * ... that 1.0 servers still append, or anything an agent adds) is not covered by a signature, and a
 * plain proto3 scalar at its default (`required: false`) is left out. `projectCard` reproduces that.
 */

type Scalar = 'string' | 'bool' | 'bool-implicit' | 'strings' | 'struct';
type Field = Scalar | Message | { list: Message } | { map: Message | 'string' };
interface Message {
  fields: Record<string, Field>;
  /** Members of a `oneof`, in declaration order: the first one present wins, as in the SDKs. */
  oneof?: string[];
}

const S = 'string' as const;
const scopes = { map: 'string' } as const;
const message = (fields: Record<string, Field>, oneof?: string[]): Message => ({ fields, ...(oneof ? { oneof } : {}) });

const SECURITY_REQUIREMENT = message({ schemes: { map: message({ list: 'strings' }) } });
const OAUTH_FLOWS = message(
  {
    authorizationCode: message({ authorizationUrl: S, tokenUrl: S, refreshUrl: S, scopes, pkceRequired: 'bool-implicit' }),
    clientCredentials: message({ tokenUrl: S, refreshUrl: S, scopes }),
    implicit: message({ authorizationUrl: S, refreshUrl: S, scopes }),
    password: message({ tokenUrl: S, refreshUrl: S, scopes }),
    deviceCode: message({ deviceAuthorizationUrl: S, tokenUrl: S, refreshUrl: S, scopes }),
  },
  ['authorizationCode', 'clientCredentials', 'implicit', 'password', 'deviceCode'],
);
const SECURITY_SCHEME = message(
  {
    apiKeySecurityScheme: message({ description: S, location: S, name: S }),
    httpAuthSecurityScheme: message({ description: S, scheme: S, bearerFormat: S }),
    oauth2SecurityScheme: message({ description: S, flows: OAUTH_FLOWS, oauth2MetadataUrl: S }),
    openIdConnectSecurityScheme: message({ description: S, openIdConnectUrl: S }),
    mtlsSecurityScheme: message({ description: S }),
  },
  ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'],
);

const AGENT_CARD = message({
  name: S,
  description: S,
  supportedInterfaces: { list: message({ url: S, protocolBinding: S, tenant: S, protocolVersion: S }) },
  provider: message({ url: S, organization: S }),
  version: S,
  documentationUrl: S,
  capabilities: message({
    streaming: 'bool',
    pushNotifications: 'bool',
    extensions: { list: message({ uri: S, description: S, required: 'bool-implicit', params: 'struct' }) },
    extendedAgentCard: 'bool',
  }),
  securitySchemes: { map: SECURITY_SCHEME },
  securityRequirements: { list: SECURITY_REQUIREMENT },
  defaultInputModes: 'strings',
  defaultOutputModes: 'strings',
  skills: {
    list: message({
      id: S,
      name: S,
      description: S,
      tags: 'strings',
      examples: 'strings',
      inputModes: 'strings',
      outputModes: 'strings',
      securityRequirements: { list: SECURITY_REQUIREMENT },
    }),
  },
  iconUrl: S,
});

function projectField(field: Field, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  switch (field) {
    case 'string':
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a mistyped field is coerced, not dropped
      return String(value);
    case 'bool':
      return Boolean(value);
    case 'bool-implicit':
      return value ? true : undefined;
    case 'strings':
      return Array.isArray(value) ? value.map(String) : undefined;
    case 'struct':
      return isRecord(value) ? value : undefined;
  }
  if ('list' in field) return Array.isArray(value) ? value.map((item) => projectMessage(field.list, item) ?? {}) : undefined;
  if ('map' in field) {
    if (!isRecord(value)) return undefined;
    const entry = field.map;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, entry === 'string' ? String(item) : (projectMessage(entry, item) ?? {})]),
    );
  }
  return projectMessage(field, value);
}

function projectMessage(schema: Message, value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const projected: Record<string, unknown> = {};
  const oneof = schema.oneof?.find((name) => value[name] !== undefined && value[name] !== null);
  for (const [name, field] of Object.entries(schema.fields)) {
    if (schema.oneof?.includes(name) && name !== oneof) continue;
    const item = projectField(field, value[name]);
    if (item !== undefined) projected[name] = item;
  }
  return projected;
}

/** Empty strings, lists and objects (and nulls) removed, recursively; `false` and `0` stay. */
export function withoutEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value)
      .map(([key, item]) => [key, withoutEmpty(item)] as const)
      .filter(([, item]) => item !== undefined);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}

/** The part of a card a signature covers: the 1.0 schema's fields, without `signatures` and empty values. */
export function projectCard(card: unknown): Record<string, unknown> {
  return (withoutEmpty(projectMessage(AGENT_CARD, card)) as Record<string, unknown> | undefined) ?? {};
}
