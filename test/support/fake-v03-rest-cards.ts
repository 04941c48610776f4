/** The fake 0.3 HTTP+JSON agent's cards (fake-v03-rest.ts): the public card and the extended one of `GET /v1/card`. */
type Json = Record<string, unknown>;

export const REST_AGENT_NAME = 'fake-v03-rest';

export function defaultRestCard(url: string): Json {
  return {
    protocolVersion: '0.3.0',
    name: REST_AGENT_NAME,
    description: 'scripted 0.3 HTTP+JSON agent',
    url: `${url}/agent`,
    preferredTransport: 'HTTP+JSON',
    additionalInterfaces: [
      { url: `${url}/agent`, transport: 'HTTP+JSON' },
      { url: '127.0.0.1:1', transport: 'GRPC' },
    ],
    version: '0.3-fake',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] }],
    supportsAuthenticatedExtendedCard: true,
  };
}

/** The proto AgentCard of `GET /v1/card`: proto security oneofs and `Security` requirements. */
export function extendedCard(url: string): Json {
  const requirement = { schemes: { bearer: { list: [] } } };
  return {
    ...defaultRestCard(url),
    description: 'scripted 0.3 HTTP+JSON agent (extended)',
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
    security: [requirement],
    skills: [
      { id: 'echo', name: 'Echo', description: 'echoes', tags: ['echo'] },
      { id: 'secret', name: 'Secret', description: 'only for callers who may see it', tags: ['secret'], security: [requirement] },
    ],
  };
}
