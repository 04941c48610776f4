import type { SecurityRequirement } from '../../model/index.js';
import type { V025OAuthFlows, V025SecurityScheme } from '../../protocol/v025/index.js';
import { defined } from '../common.js';

/** 1.0's OAuthFlows is a oneof: the first flow in a2a-js's order survives, the others are lost. */
const FLOW_ORDER = ['authorizationCode', 'clientCredentials', 'implicit', 'password'] as const;

function firstFlow(flows: V025OAuthFlows): Record<string, unknown> {
  for (const name of FLOW_ORDER) {
    const flow = flows[name];
    if (flow) return { [name]: defined({ ...flow }) };
  }
  return {};
}

/** 0.2.5 `type`-discriminated scheme → 1.0 oneof key (docs/version-mapping.md, "Security schemes"). */
export function securitySchemeToV1(scheme: V025SecurityScheme): Record<string, unknown> {
  const description = scheme.description;
  switch (scheme.type) {
    case 'apiKey':
      return { apiKeySecurityScheme: defined({ location: scheme.in, name: scheme.name, description }) };
    case 'http':
      return { httpAuthSecurityScheme: defined({ scheme: scheme.scheme, bearerFormat: scheme.bearerFormat, description }) };
    case 'oauth2':
      return { oauth2SecurityScheme: defined({ flows: firstFlow(scheme.flows), description }) };
    case 'openIdConnect':
      return { openIdConnectSecurityScheme: defined({ openIdConnectUrl: scheme.openIdConnectUrl, description }) };
    case 'mutualTLS':
      return { mtlsSecurityScheme: defined({ description }) };
  }
}

/** `[{scheme: [scopes]}]` → `[{schemes: {scheme: {list: [scopes]}}}]` (StringList wrapper). */
export function securityToV1(security: readonly Record<string, string[]>[]): SecurityRequirement[] {
  return security.map((requirement) => ({
    schemes: Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, { list: [...scopes] }])),
  }));
}
