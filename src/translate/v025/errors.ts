import { A2AError, ErrorCode, TASK_STATES, type JsonRpcErrorObject, type TaskState } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import { isV025ErrorCode, type V025JsonRpcError } from '../../protocol/v025/index.js';
import { cutAtCodePoint, MAX_MESSAGE_CHARS } from '../../scrub-text.js';
import { isRecord } from '../common.js';

/** What a 0.2.5 caller gets: code and message only (0.2.5 `data` is free-form; 1.0's ErrorInfo list would confuse it). */
export interface V025ErrorObject {
  code: number;
  message: string;
}

/** An error's message is bounded as an agent's scrubbed text is (src/scrub-text.ts): a 0.2.5 caller reads as much. */
const MAX_MESSAGE = MAX_MESSAGE_CHARS;
const MAX_METADATA_ENTRIES = 20;
const MAX_METADATA_VALUE = 200;
/** Keys whose values are diagnostics for the upstream's operators, not for callers. */
const PRIVATE_DATA_KEY = /stack|trace|exception|file|path/i;

/** A2AError or a 1.0 JSON-RPC error object → 0.2.5 error, code mapped through the profile. */
export function errorToV025(error: A2AError | JsonRpcErrorObject, profile: MappingProfile): V025ErrorObject {
  const code = profile.errorsToV025.get(error.code) ?? (isV025ErrorCode(error.code) ? error.code : ErrorCode.Internal);
  const message = typeof error.message === 'string' && error.message.trim() !== '' ? error.message : undefined;
  return { code, message: cutAtCodePoint(inV025States(message ?? profile.errorMessagesV025.get(code) ?? 'Internal error', profile), MAX_MESSAGE) };
}

/**
 * A state as 1.0 agents name it in an error's words: its name ("TASK_STATE_COMPLETED"), or after "terminal state"
 * its proto enum number, which a2a-js 1.x ("is in a terminal state (3)") and iac-code ("is in terminal state: 3") print.
 */
const V1_STATE_IN_WORDS = /\bTASK_STATE_[A-Z_]+\b|(?<=\bterminal state(?: \(|: ))\d+\b/g;

/** 1.0's states in an error's words ("is in a terminal state (TASK_STATE_COMPLETED)", "… (3)") as the caller's task shows them ("completed"). */
function inV025States(message: string, profile: MappingProfile): string {
  return message.replace(V1_STATE_IN_WORDS, (said) => {
    const name = /^\d+$/.test(said) ? TASK_STATES[Number(said)] : said;
    return name !== undefined && Object.hasOwn(profile.statesToV025, name) ? profile.statesToV025[name as TaskState] : said;
  });
}

function dataToMetadata(data: unknown): Record<string, string> {
  const metadata: Record<string, string> = {};
  if (!isRecord(data)) return metadata;
  for (const [key, value] of Object.entries(data)) {
    if (Object.keys(metadata).length >= MAX_METADATA_ENTRIES) break;
    if (PRIVATE_DATA_KEY.test(key)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      metadata[key] = cutAtCodePoint(String(value), MAX_METADATA_VALUE);
    }
  }
  return metadata;
}

/**
 * 0.2.5 error (from an upstream) → A2AError. Codes outside the table pass through when they are
 * legal in 1.0's implementation range, else become -32603. Primitive entries of an object `data`
 * become ErrorInfo metadata strings; nested or diagnostic-looking values are not forwarded.
 */
export function errorFromV025(error: V025JsonRpcError | JsonRpcErrorObject, profile: MappingProfile): A2AError {
  const mapped = profile.errorsFromV025.get(error.code);
  const code = mapped ?? (isV025ErrorCode(error.code) ? error.code : ErrorCode.Internal);
  const message =
    typeof error.message === 'string' && error.message.trim() !== ''
      ? cutAtCodePoint(error.message, MAX_MESSAGE)
      : (profile.errorMessagesV025.get(code) ?? 'Internal error');
  return new A2AError(code, message, { metadata: dataToMetadata(error.data) });
}
