import { parseParams } from '../../model/index.js';
import { isRecord, type JsonObject } from '../../model/json.js';
import { isBoolean, isId, isString, isStringArray, optional } from '../../model/value-checks.js';
import { V025MessageSendParams } from './requests.js';

/**
 * A hand-written check of a caller's message/send (message/stream) params against V025MessageSendParams, as
 * model/well-formed.ts checks the 1.0 objects: zod builds a copy of what it validates, and every facade turn
 * crosses this parse. It accepts only params that zod would return unchanged: text and data parts (a file
 * part, a 0.1 leftover `type` or `file.data`, a push config go to zod), and no object holding an own
 * `__proto__` key (zod drops it). Anything it does not accept goes to zod, which accepts it after all or
 * names the offending field: a caller's mistake reads as it did.
 */

const ROLES: ReadonlySet<unknown> = new Set(['user', 'agent']);

/** A JSON object as zod would copy it, key for key. */
const isJsonObject = (value: unknown): value is JsonObject => isRecord(value) && !Object.hasOwn(value, '__proto__');

function isPart(value: unknown): boolean {
  if (!isJsonObject(value) || !optional(value.metadata, isJsonObject)) return false;
  if (value.kind === 'text') return isString(value.text);
  return value.kind === 'data' && isJsonObject(value.data);
}

function isParts(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const part of value) if (!isPart(part)) return false;
  return true;
}

function isMessage(value: unknown): boolean {
  return (
    isJsonObject(value) &&
    value.kind === 'message' &&
    isId(value.messageId) &&
    ROLES.has(value.role) &&
    isParts(value.parts) &&
    optional(value.contextId, isString) &&
    optional(value.taskId, isString) &&
    optional(value.referenceTaskIds, isStringArray) &&
    optional(value.extensions, isStringArray) &&
    optional(value.metadata, isJsonObject)
  );
}

/** A configuration without a push config (that one is left to zod, which checks its URL). zod's int() takes safe integers only. */
function isPlainConfiguration(value: unknown): boolean {
  return (
    isJsonObject(value) &&
    value.pushNotificationConfig === undefined &&
    optional(value.acceptedOutputModes, isStringArray) &&
    optional(value.historyLength, Number.isSafeInteger) &&
    optional(value.blocking, isBoolean)
  );
}

/** Whether message/send params are what V025MessageSendParams accepts, as they are. */
export function isWellFormedV025SendParams(value: unknown): value is V025MessageSendParams {
  return (
    isJsonObject(value) && isMessage(value.message) && optional(value.configuration, isPlainConfiguration) && optional(value.metadata, isJsonObject)
  );
}

/** message/send (message/stream) params checked: as they are when well-formed, else by the schema (-32602 naming the field). */
export const parseV025SendParams = (value: unknown): V025MessageSendParams =>
  isWellFormedV025SendParams(value) ? value : parseParams(V025MessageSendParams, value);
