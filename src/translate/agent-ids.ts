import { Buffer } from 'node:buffer';
import { A2AError, isProtocolId } from '../model/index.js';

/**
 * An older agent's task and context ids as the gateway hands them to 1.0 callers. A2A 0.2.5 and 0.3 let an
 * agent name its tasks and contexts with any string ("session/42 ü"), while the gateway's ids follow
 * iac-code's rule (src/model/ids.ts), on which its store keys, lanes and REST paths rely: an id it handed
 * out and then refused would leave the caller no way to answer the agent's question or list its context.
 *
 * So an agent's id that is no protocol id reaches the 1.0 side as `b64:` and the base64url of its UTF-8,
 * itself a protocol id, and goes back to the agent as it was: no store, the id is its own mapping. An id
 * that is a protocol id already passes unchanged both ways (iac-code's, UUIDs). The mapping is a bijection:
 * an agent's protocol id that reads as an encoded one (`b64:` and the base64url of a non-protocol id) is
 * encoded too, so every 1.0 id decodes to exactly one agent id (docs/version-mapping.md, Agents' ids).
 */

export const ENCODED_AGENT_ID_PREFIX = 'b64:';

const MAX_PROTOCOL_ID_LENGTH = 128;

/** What an id names, for the refusal of one that cannot be carried. */
export type AgentIdKind = 'task id' | 'context id';

/** The agent's id `id` stands for, when `id` is the encoding of one; otherwise undefined. */
function decodedAgentId(id: string): string | undefined {
  if (!id.startsWith(ENCODED_AGENT_ID_PREFIX)) return undefined;
  const payload = id.slice(ENCODED_AGENT_ID_PREFIX.length);
  const bytes = Buffer.from(payload, 'base64url');
  // Only the one spelling the encoder writes: padding, stray characters or loose trailing bits make a
  // different id, which must stay itself for the mapping to stay one-to-one.
  if (bytes.toString('base64url') !== payload) return undefined;
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return undefined;
  return needsEncoding(text) ? text : undefined;
}

/** '' is "no id" (ProtoJSON's unset string), which the translators' fallbacks fill: it passes as it is. */
function needsEncoding(id: string): boolean {
  return id !== '' && (!isProtocolId(id) || decodedAgentId(id) !== undefined);
}

const shown = (id: string): string => JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id);

/**
 * An agent's id → the id 1.0 callers get. One whose encoding would not fit the 128 characters of a protocol
 * id (more than 93 bytes of UTF-8) or that is no Unicode text cannot be carried: the agent's answer is
 * refused naming it, rather than handing out an id every later call would refuse.
 */
export function agentIdToV1(id: string, kind: AgentIdKind): string {
  if (!needsEncoding(id)) return id;
  const bytes = Buffer.from(id, 'utf8');
  const encoded = `${ENCODED_AGENT_ID_PREFIX}${bytes.toString('base64url')}`;
  if (encoded.length > MAX_PROTOCOL_ID_LENGTH || bytes.toString('utf8') !== id) {
    throw A2AError.invalidAgentResponse(
      `The upstream agent's ${kind} ${shown(id)} cannot be passed to A2A 1.0 callers: an id other than 1-128 letters, digits, _ . : - ` +
        'is carried encoded, and this one is too long for that (over 93 bytes) or not valid text',
    );
  }
  return encoded;
}

/** A 1.0 caller's id → the agent's: an encoded id decodes, any other is the agent's own. */
export const agentIdFromV1 = (id: string): string => decodedAgentId(id) ?? id;
