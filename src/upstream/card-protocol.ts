import { isRecord } from '../model/json.js';

/** The A2A versions the gateway tells apart upstream (0.2.x is spoken as 0.2.5). */
export type UpstreamProtocol = '1.0' | '0.3' | '0.2.5';

const isMajor = (version: unknown, major: RegExp): boolean => typeof version === 'string' && major.test(version.trim());
const V1 = /^1(\.|$)/;
const V03 = /^0\.3(\.|$)/;
const V02 = /^0\.2(\.|$)/;

/** A `supportedInterfaces` entry that declares a pre-1.0 version (an a2a-js 1.x server's 0.3-compat interface). */
export const isLegacyInterface = (entry: Record<string, unknown>): boolean =>
  isMajor(entry.protocolVersion, V03) || isMajor(entry.protocolVersion, V02);

/**
 * Which protocol a card speaks. A 1.x entry in `supportedInterfaces` wins (1.0 agents with 0.3
 * compat also carry the legacy top-level fields); a 1.0-shaped card whose every interface says 0.3
 * is an a2a-js 1.x agent served only as 0.3 (it refuses 1.0 calls); then the card-level
 * `protocolVersion` of 0.2/0.3 cards. A legacy card without a version (the a2a-js 0.2.5 SDK writes
 * none) is taken for the version of the well-known path it was found at. Undefined: not an agent card.
 */
export function classifyCard(card: unknown, foundAt: 'agent-card.json' | 'agent.json'): UpstreamProtocol | undefined {
  if (!isRecord(card)) return undefined;
  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces.filter(isRecord) : [];
  if (interfaces.some((entry) => isMajor(entry.protocolVersion, V1))) return '1.0';
  if (interfaces.length > 0 && interfaces.every((entry) => isMajor(entry.protocolVersion, V03))) return '0.3';
  if (isMajor(card.protocolVersion, V03)) return '0.3';
  if (isMajor(card.protocolVersion, V02)) return '0.2.5';
  if (isMajor(card.protocolVersion, V1) || interfaces.length > 0) return '1.0';
  if (typeof card.url === 'string') return foundAt === 'agent.json' ? '0.2.5' : '0.3';
  return undefined;
}
