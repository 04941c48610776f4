import { withFields, type AgentCard } from '../../model/index.js';
import { isRecord } from '../../model/json.js';

type Capabilities = AgentCard['capabilities'];

/** The origins the upstream card names as its own: those of its interfaces. */
function upstreamOrigins(card: AgentCard): string[] {
  const origins = new Set<string>();
  for (const entry of card.supportedInterfaces ?? []) {
    try {
      origins.add(new URL(entry.url).origin);
    } catch {
      // Not a URL: nothing to recognise it by.
    }
  }
  return [...origins];
}

/** `value` is `origin` itself or a URL under it (not merely a longer host name). */
const pointsAt = (value: string, origin: string): boolean =>
  value.startsWith(origin) && (value.length === origin.length || '/?#'.includes(value.charAt(origin.length)));

function rewrite(value: unknown, origins: string[], baseUrl: string): unknown {
  if (typeof value === 'string') {
    const origin = origins.find((candidate) => pointsAt(value, candidate));
    return origin === undefined ? value : `${baseUrl}${value.slice(origin.length)}`;
  }
  if (Array.isArray(value)) return value.map((item) => rewrite(item, origins, baseUrl));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item, origins, baseUrl)]));
  return value;
}

/**
 * The capabilities with every URL in an extension's params that points at the upstream (e.g.
 * iac-code's pipeline `stateEndpoint` when given absolute) pointing at the gateway instead, which
 * serves those routes (agent-routes.ts). Relative paths stay: they now resolve against the gateway.
 */
export function withGatewayExtensionUrls(card: AgentCard, baseUrl: string): Capabilities {
  const origins = upstreamOrigins(card);
  const extensions = card.capabilities.extensions;
  if (origins.length === 0 || !extensions) return card.capabilities;
  return withFields(card.capabilities, {
    extensions: extensions.map((extension) =>
      extension.params ? withFields(extension, { params: rewrite(extension.params, origins, baseUrl) as typeof extension.params }) : extension,
    ),
  });
}
