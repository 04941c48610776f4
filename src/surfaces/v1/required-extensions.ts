import type { ExtensionConfig } from '../../config/schema.js';
import type { CallContext } from '../../core/agent-port.js';
import type { CardSource } from '../../core/card-source.js';
import { A2AError } from '../../model/index.js';
import { cardExtensions, gatewayExtensions } from './card.js';

/**
 * A message send must name every extension the served card marks `required` in its A2A-Extensions
 * header, or it fails with -32008 before anything reaches the upstream (as the SDK servers do: only
 * message sends are checked, where an extension changes what the agent does). Without `cards`, the
 * gateway's own extensions (config `extensions`) are the served card's.
 */
export function requireExtensions(served: { cards?: CardSource; extensions: ExtensionConfig[] }, ctx: CallContext): void {
  const card = served.cards?.current()?.card;
  const declared = card ? (cardExtensions(card, served) ?? []) : gatewayExtensions(served);
  const requested = new Set(ctx.extensions ?? []);
  const missing = declared.filter((extension) => extension.required === true && !requested.has(extension.uri)).map((extension) => extension.uri);
  if (missing.length > 0) throw A2AError.extensionSupportRequired(missing);
}
