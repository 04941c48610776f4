import type { Message, StreamResponse, Task } from '../model/index.js';

/**
 * iac-code echoes the caller's `metadata.iac_code` (API keys, cloud credentials) verbatim into the
 * first Task frame's history (docs/iac-code.md, "Secrets echoed back"). Secrets in message metadata are replaced
 * before anything leaves the gateway or is stored. Only message metadata is scanned: event and
 * task metadata carry counters such as `usage.totalTokens` that the key pattern would hit.
 */

export const REDACTED = '[REDACTED]';

const SECRET_KEYS: ReadonlySet<string> = new Set([
  'iac_code_api_key',
  'alibaba_cloud_access_key_id',
  'alibaba_cloud_access_key_secret',
  'alibaba_cloud_security_token',
]);
const SECRET_KEY_PATTERN = /secret|password|token|api_?key|credential/i;
const MAX_DEPTH = 8;

const isSecretKey = (key: string): boolean => SECRET_KEYS.has(key) || SECRET_KEY_PATTERN.test(key);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Cheap read-only scan: does anything under `value` still need redacting? */
function hasSecret(value: unknown, depth: number): boolean {
  if (!isObject(value) || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => hasSecret(item, depth + 1));
  for (const key in value) {
    const inner = value[key];
    if (isSecretKey(key) && inner !== undefined && inner !== null && inner !== REDACTED) return true;
    if (hasSecret(inner, depth + 1)) return true;
  }
  return false;
}

function redactValue(value: unknown, depth: number): unknown {
  if (!isObject(value) || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const inner = value[key];
    copy[key] = isSecretKey(key) && inner !== undefined && inner !== null ? REDACTED : redactValue(inner, depth + 1);
  }
  return copy;
}

/** The message, or a copy with secret metadata values replaced. */
export function redactMessage(message: Message): Message {
  if (!message.metadata || !hasSecret(message.metadata, 0)) return message;
  return { ...message, metadata: redactValue(message.metadata, 0) as Record<string, unknown> };
}

/** The task, or a copy whose history and status message carry no secrets. */
export function redactTask(task: Task): Task {
  const statusMessage = task.status.message ? redactMessage(task.status.message) : undefined;
  let history = task.history;
  if (history?.some((message) => message.metadata !== undefined && hasSecret(message.metadata, 0))) {
    history = history.map(redactMessage);
  }
  if (statusMessage === task.status.message && history === task.history) return task;
  const copy: Task = { ...task, status: statusMessage ? { ...task.status, message: statusMessage } : task.status };
  if (history) copy.history = history;
  return copy;
}

/** The event, or a redacted copy; never copies when there is nothing to redact. */
export function redactEvent(event: StreamResponse): StreamResponse {
  if ('task' in event) {
    const task = redactTask(event.task);
    return task === event.task ? event : { task };
  }
  if ('message' in event) {
    const message = redactMessage(event.message);
    return message === event.message ? event : { message };
  }
  if ('statusUpdate' in event) {
    const message = event.statusUpdate.status.message;
    if (!message) return event;
    const redacted = redactMessage(message);
    if (redacted === message) return event;
    return { statusUpdate: { ...event.statusUpdate, status: { ...event.statusUpdate.status, message: redacted } } };
  }
  return event;
}
