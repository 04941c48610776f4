import type { ExtensionConfig } from '../../config/schema.js';
import type { AgentCard } from '../../model/index.js';
import type { V025AgentExtension } from '../../protocol/v025/index.js';
import { BAILIAN_PROTOCOL_EXTENSION_URIS, defined } from '../../translate/index.js';

/**
 * capabilities.extensions of the facade card: Bailian's protocol extension (the facade forwards its
 * inbound metadata and places device commands on the last artifact), then the upstream's own
 * extensions and the gateway's own (config `extensions`), informational only: the facade never
 * requires one from its caller (Bailian sends no extension header), so `required` goes.
 */
export function facadeExtensions(card: AgentCard, gatewayExtensions: readonly ExtensionConfig[]): V025AgentExtension[] {
  const declared = new Set<string>(BAILIAN_PROTOCOL_EXTENSION_URIS);
  const extensions: V025AgentExtension[] = BAILIAN_PROTOCOL_EXTENSION_URIS.map((uri) => ({ uri }));
  for (const extension of [...(card.capabilities.extensions ?? []), ...gatewayExtensions]) {
    if (declared.has(extension.uri)) continue;
    declared.add(extension.uri);
    extensions.push(defined({ uri: extension.uri, description: extension.description, params: extension.params }));
  }
  return extensions;
}
