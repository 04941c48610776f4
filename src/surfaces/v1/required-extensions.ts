import type { CallContext } from '../../core/agent-port.js';
import { A2AError } from '../../model/index.js';
import { cardExtensions, gatewayExtensions } from './card.js';
import type { OperationEnv } from './operations.js';

/**
 * A message send must name every extension the served card marks `required` in its A2A-Extensions
 * header, or it fails with -32008 before anything reaches the upstream (as the SDK servers do: only
 * message sends are checked, where an extension changes what the agent does).
 */
export function requireExtensions(env: Pick<OperationEnv, 'cards' | 'config'>, ctx: CallContext): void {
  const card = env.cards?.current()?.card;
  const declared = card ? (cardExtensions(card, env.config) ?? []) : gatewayExtensions(env.config);
  const requested = new Set(ctx.extensions ?? []);
  const missing = declared.filter((extension) => extension.required === true && !requested.has(extension.uri)).map((extension) => extension.uri);
  if (missing.length > 0) throw A2AError.extensionSupportRequired(missing);
}
