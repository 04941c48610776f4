import type { MappingProfile } from '../../mappings/index.js';
import { A2AError } from '../../model/index.js';
import { V025JsonRpcError, type V025Method } from '../../protocol/v025/index.js';
import { errorFromV025 } from '../../translate/index.js';
import type { JsonRpcWire } from '../jsonrpc-client.js';
import { sanitizeUpstreamText } from '../../scrub-text.js';
import { isRecord } from '../../model/json.js';

/** Primitive entries of an object `data`, scrubbed; errorFromV025 drops everything else anyway. */
function scrubbedData(data: unknown, secrets: readonly string[]): Record<string, unknown> | undefined {
  if (!isRecord(data)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string') out[key] = sanitizeUpstreamText(value, secrets);
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

/**
 * A 0.2.5/0.3 upstream's JSON-RPC error → A2AError: the text is scrubbed like any upstream text
 * (a2a-js 0.2.5 puts `error.message` of any exception there), then the code is mapped by the profile; told as the
 * agent's own (`reported`, model/errors.ts UpstreamFault).
 */
export function fromV025JsonRpcError(error: unknown, secrets: readonly string[], profile: MappingProfile): A2AError {
  const parsed = V025JsonRpcError.safeParse(error);
  if (!parsed.success) return A2AError.invalidAgentResponse('The upstream agent returned a malformed error');
  const { code, message, data } = parsed.data;
  const told = errorFromV025({ code, message: sanitizeUpstreamText(message, secrets), data: scrubbedData(data, secrets) }, profile);
  return told.withOptions({ upstreamFault: 'reported' });
}

/** The 0.2.5 and 0.3 JSON-RPC wire: no version header, `X-A2A-Extensions`, 0.2.5 error codes. */
/** The 0.2.5 (and 0.3) send, answered, headers included, only at the turn's end by a2a-js (headersTimeoutOf). */
export const V025_SEND: V025Method = 'message/send';

export function v025Wire(profile: MappingProfile): JsonRpcWire {
  return {
    headers: {},
    extensionsHeader: 'x-a2a-extensions',
    fromError: (error, secrets) => fromV025JsonRpcError(error, secrets, profile),
    sendMethod: V025_SEND,
  };
}
