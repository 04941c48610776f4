import type { AgentCard } from '../../model/index.js';
import type { V025AgentExtension } from '../../protocol/v025/index.js';
import { BAILIAN_PROTOCOL_EXTENSION_URIS, defined } from '../../translate/index.js';

/**
 * capabilities.extensions of the facade card: Bailian's protocol extension (the facade forwards its
 * inbound metadata and places device commands on the last artifact), then the upstream's own
 * extensions, informational only: the facade never requires one from its caller, so `required` goes.
 */
export function facadeExtensions(card: AgentCard): V025AgentExtension[] {
  const declared = new Set<string>(BAILIAN_PROTOCOL_EXTENSION_URIS);
  const upstream = (card.capabilities.extensions ?? [])
    .filter((extension) => !declared.has(extension.uri))
    .map((extension) => defined({ uri: extension.uri, description: extension.description, params: extension.params }));
  return [...BAILIAN_PROTOCOL_EXTENSION_URIS.map((uri) => ({ uri })), ...upstream];
}
