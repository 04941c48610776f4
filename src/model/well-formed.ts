import { A2AError } from './errors.js';
import { isProtocolId, TENANT_PATTERN } from './ids.js';
import { isRecord } from './json.js';
import type { SendMessageResponse, StreamResponse } from './events.js';
import { SendMessageRequest } from './requests.js';
import { TASK_STATES, type Task } from './task.js';
import { parseParams } from './validate.js';
import { isBoolean, isId, isString, isStringArray, optional } from './value-checks.js';

/**
 * Hand-written checks of the hot path's objects against the model's zod schemas: what an upstream
 * answers (stream events, SendMessage results, tasks) and what a caller sends (SendMessage params).
 * zod builds a copy of every object it validates, which on a long stream cost more than relaying the
 * event, and on a blocking call about as much as parsing its body. They accept only what the schema
 * accepts, with a wrapper holding exactly one key (zod would strip extra keys); anything they do
 * not accept goes to zod, which either accepts it after all or names the offending field.
 */

type Shape = Record<string, unknown>;

const STATES: ReadonlySet<unknown> = new Set(TASK_STATES);
const ROLES: ReadonlySet<unknown> = new Set(['ROLE_USER', 'ROLE_AGENT']);
const PART_CONTENT = ['text', 'raw', 'url', 'data'] as const;

const isShape = (value: unknown): value is Shape => isRecord(value);

function everyOf(value: unknown, check: (item: unknown) => boolean, minLength = 0): boolean {
  if (!Array.isArray(value) || value.length < minLength) return false;
  for (const item of value) if (!check(item)) return false;
  return true;
}

function isPart(value: unknown): boolean {
  if (!isShape(value)) return false;
  let contents = 0;
  for (const key of PART_CONTENT) if (value[key] !== undefined) contents++;
  return (
    contents === 1 &&
    optional(value.text, isString) &&
    optional(value.raw, isString) &&
    optional(value.url, isString) &&
    optional(value.mediaType, isString) &&
    optional(value.filename, isString) &&
    optional(value.metadata, isShape)
  );
}

function isMessage(value: unknown): boolean {
  return (
    isShape(value) &&
    isId(value.messageId) &&
    ROLES.has(value.role) &&
    everyOf(value.parts, isPart, 1) &&
    optional(value.contextId, isProtocolId) &&
    optional(value.taskId, isProtocolId) &&
    optional(value.referenceTaskIds, isStringArray) &&
    optional(value.extensions, isStringArray) &&
    optional(value.metadata, isShape)
  );
}

function isStatus(value: unknown): boolean {
  return isShape(value) && STATES.has(value.state) && optional(value.message, isMessage) && optional(value.timestamp, isString);
}

function isArtifact(value: unknown): boolean {
  return (
    isShape(value) &&
    isId(value.artifactId) &&
    everyOf(value.parts, isPart, 1) &&
    optional(value.name, isString) &&
    optional(value.description, isString) &&
    optional(value.metadata, isShape) &&
    optional(value.extensions, isStringArray)
  );
}

function isTask(value: unknown): boolean {
  return (
    isShape(value) &&
    isId(value.id) &&
    optional(value.contextId, isString) &&
    isStatus(value.status) &&
    optional(value.artifacts, (artifacts) => everyOf(artifacts, isArtifact)) &&
    optional(value.history, (history) => everyOf(history, isMessage)) &&
    optional(value.metadata, isShape)
  );
}

function isStatusUpdate(value: unknown): boolean {
  return isShape(value) && isString(value.taskId) && isString(value.contextId) && isStatus(value.status) && optional(value.metadata, isShape);
}

function isArtifactUpdate(value: unknown): boolean {
  return (
    isShape(value) &&
    isString(value.taskId) &&
    isString(value.contextId) &&
    isArtifact(value.artifact) &&
    optional(value.append, isBoolean) &&
    optional(value.lastChunk, isBoolean) &&
    optional(value.metadata, isShape)
  );
}

const WRAPPED: Readonly<Record<string, (value: unknown) => boolean>> = {
  task: isTask,
  message: isMessage,
  statusUpdate: isStatusUpdate,
  artifactUpdate: isArtifactUpdate,
};

/** Whether `value` is `{<key>: inner}` with `key` one of `keys` and nothing else beside it. */
function isWrapped(value: unknown, keys: readonly string[]): boolean {
  if (!isShape(value)) return false;
  const own = Object.keys(value);
  const key = own.length === 1 ? (own[0] as string) : '';
  return keys.includes(key) && (WRAPPED[key] as (inner: unknown) => boolean)(value[key]);
}

const STREAM_KEYS = Object.keys(WRAPPED);
const SEND_MESSAGE_KEYS = ['task', 'message'];

/** Whether `value` is a StreamResponse as it may be relayed unchanged: one wrapper key, a well-formed object in it. */
export function isWellFormedStreamEvent(value: unknown): value is StreamResponse {
  return isWrapped(value, STREAM_KEYS);
}

/** The same for a SendMessage result (`{task}` or `{message}`). */
export function isWellFormedSendMessageResponse(value: unknown): value is SendMessageResponse {
  return isWrapped(value, SEND_MESSAGE_KEYS);
}

const isTenant = (value: unknown): boolean => typeof value === 'string' && TENANT_PATTERN.test(value);
// zod's int() takes safe integers only.
const isHistoryLength = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** A configuration without a push config (that one is left to zod, which names what is wrong in it). */
function isPlainConfiguration(value: unknown): boolean {
  return (
    isShape(value) &&
    value.taskPushNotificationConfig === undefined &&
    optional(value.acceptedOutputModes, isStringArray) &&
    optional(value.historyLength, isHistoryLength) &&
    optional(value.returnImmediately, isBoolean)
  );
}

/** Whether SendMessage / SendStreamingMessage params are what the schema accepts, as they are. */
export function isWellFormedSendMessageRequest(value: unknown): value is SendMessageRequest {
  return (
    isShape(value) &&
    isMessage(value.message) &&
    optional(value.tenant, isTenant) &&
    optional(value.configuration, isPlainConfiguration) &&
    optional(value.metadata, isShape)
  );
}

/** The same for a Task (GetTask, CancelTask). */
export const isWellFormedTask = (value: unknown): value is Task => isTask(value);

/** Base64, standard or URL-safe, padded or not (what proto3 JSON reads as `bytes`), with MIME's line breaks or not. */
const BASE64 = /^[A-Za-z0-9+/_\s-]*={0,2}\s*$/;

export const isBase64 = (value: string): boolean => BASE64.test(value) && value.replace(/[\s=]+/g, '').length % 4 !== 1;

/** Longer than any id a client makes (a UUID is 36); an agent may refuse the whole request for it (HTTP 413). */
const MAX_MESSAGE_ID = 1024;

/**
 * More tasks than a turn refers to in practice: each one is looked up for its owner before the message goes
 * on (task-scope.ts), so an unbounded list would let one message make the gateway read thousands of records.
 */
export const MAX_REFERENCED_TASKS = 64;

const refused = (field: string, description: string): A2AError =>
  A2AError.invalidParams(`Invalid params: ${field}: ${description}`, [{ field, description }]);

/**
 * What the caller's message must be beyond its schema, since the agent would fail on it, or not say why: a
 * messageId of a sane length, and a part's `raw` that decodes (not bytes nobody can read). And the user's:
 * ROLE_AGENT means "from the server to the client" (a2a.proto `Role`), and an agent files what it is sent
 * in the task's history, where a caller's words would then read as the agent's own.
 */
function requireSendable(request: SendMessageRequest): SendMessageRequest {
  const { message } = request;
  if (message.role !== 'ROLE_USER') throw refused('message.role', "must be ROLE_USER: a caller's message is the user's");
  if (message.messageId.length > MAX_MESSAGE_ID) throw refused('message.messageId', `at most ${MAX_MESSAGE_ID} characters`);
  if ((message.referenceTaskIds?.length ?? 0) > MAX_REFERENCED_TASKS)
    throw refused('message.referenceTaskIds', `at most ${MAX_REFERENCED_TASKS} tasks`);
  message.parts.forEach((part, at) => {
    if (part.raw !== undefined && !isBase64(part.raw)) throw refused(`message.parts.${at}.raw`, 'not base64');
  });
  return request;
}

/** SendMessage / SendStreamingMessage params checked: as they are when well-formed, else by the schema (-32602 naming the field). */
export const parseSendMessageRequest = (value: unknown): SendMessageRequest =>
  requireSendable(isWellFormedSendMessageRequest(value) ? value : parseParams(SendMessageRequest, value));
