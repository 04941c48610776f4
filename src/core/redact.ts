import { withFields, type Message, type StreamResponse, type Task, type TaskState, type TaskStatus } from '../model/index.js';
import { sanitizeUpstreamText } from '../scrub-text.js';
import type { AgentPort } from './agent-port.js';
import { mapIterable } from './iterables.js';
import { overlay } from './overlay.js';
import { readingOn } from './read-on.js';
import { secretName, type SecretName } from './secret-names.js';

/**
 * An agent like iac-code echoes the caller's message metadata (API keys, cloud credentials) verbatim
 * into its answers. Secrets in message metadata are replaced before anything leaves the gateway or is
 * stored: values under keys the generic pattern matches, and under the agent's own secret keys, which
 * the dialect module names (upstream/iac-code/secrets.ts) and the gateway is given (secret-names.ts says
 * which names). Only message metadata is scanned, where the caller's credentials are echoed; event and
 * task metadata are the agent's own.
 *
 * A failure's reason (a failed or rejected task's status message) is an error's text too:
 * iac-code fails a turn with `str(exception)`, traceback, workspace paths and echoed tokens included. It is
 * scrubbed as an agent's error message is (scrub-text.ts), for every caller, the registry and push alike.
 */

export const REDACTED = '[REDACTED]';

/**
 * States whose message is a failure's reason. An auth prompt's or a cancellation's is the agent's word to
 * the user (a sign-in link with its query), left as it is.
 */
const isFailureState = (state: TaskState): boolean => state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_REJECTED';

const MAX_DEPTH = 8;

/** Redacts messages, tasks and events; each returns its input unchanged (the same object) when it holds no secret. */
export interface Redaction {
  message(message: Message): Message;
  task(task: Task): Task;
  event(event: StreamResponse): StreamResponse;
}

/**
 * A value that can hold a secret: not nothing, not a flag (`credentials: true` says nothing secret), and not a
 * number under a plural name (`totalTokens: 177` counts tokens; `password: 1234` is one).
 */
const isSecretValue = (value: unknown, name: SecretName): boolean =>
  value !== undefined && value !== null && typeof value !== 'boolean' && !(name === 'many' && typeof value === 'number');

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function createRedaction(secretKeys: Iterable<string> = [], secretValues: readonly string[] = []): Redaction {
  const keys: ReadonlySet<string> = new Set(secretKeys);
  /** Whether `value` under `key` is to be redacted: under one of the agent's own secret keys, or a name secret-names.ts judges secret. */
  const isSecretEntry = (key: string, value: unknown): boolean => {
    const name = keys.has(key) ? 'one' : secretName(key);
    return name !== 'none' && isSecretValue(value, name);
  };

  /** Cheap read-only scan: does anything under `value` still need redacting? */
  function hasSecret(value: unknown, depth: number): boolean {
    if (!isObject(value) || depth > MAX_DEPTH) return false;
    if (Array.isArray(value)) return value.some((item) => hasSecret(item, depth + 1));
    for (const key in value) {
      const inner = value[key];
      if (inner !== REDACTED && isSecretEntry(key, inner)) return true;
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
      copy[key] = isSecretEntry(key, inner) ? REDACTED : redactValue(inner, depth + 1);
    }
    return copy;
  }

  function message(value: Message): Message {
    if (!value.metadata || !hasSecret(value.metadata, 0)) return value;
    return withFields(value, { metadata: redactValue(value.metadata, 0) as Record<string, unknown> });
  }

  /** A message's text scrubbed as an error's (the same object when there was nothing to scrub). */
  function scrubbed(value: Message): Message {
    let changed = false;
    const parts = value.parts.map((part) => {
      const safe = part.text === undefined ? undefined : sanitizeUpstreamText(part.text, secretValues);
      if (safe === undefined || safe === part.text) return part;
      changed = true;
      return withFields(part, { text: safe });
    });
    return changed ? withFields(value, { parts }) : value;
  }

  function status(value: TaskStatus): TaskStatus {
    if (!value.message) return value;
    const redacted = message(value.message);
    const safe = isFailureState(value.state) ? scrubbed(redacted) : redacted;
    return safe === value.message ? value : withFields(value, { message: safe });
  }

  function task(value: Task): Task {
    const taskStatus = status(value.status);
    let history = value.history;
    if (history?.some((entry) => entry.metadata !== undefined && hasSecret(entry.metadata, 0))) history = history.map(message);
    // The agent keeps its failure's reason in the history too (a2a-js records every status message there):
    // the reason as the status now gives it stands there as well.
    const reason = taskStatus.message !== value.status.message ? taskStatus.message : undefined;
    if (reason && history?.some((entry) => entry.messageId === reason.messageId)) {
      history = history.map((entry) => (entry.messageId === reason.messageId ? reason : entry));
    }
    if (taskStatus === value.status && history === value.history) return value;
    const copy: Task = withFields(value, { status: taskStatus });
    if (history) copy.history = history;
    return copy;
  }

  function event(value: StreamResponse): StreamResponse {
    if ('task' in value) {
      const redacted = task(value.task);
      return redacted === value.task ? value : { task: redacted };
    }
    if ('message' in value) {
      const redacted = message(value.message);
      return redacted === value.message ? value : { message: redacted };
    }
    if ('statusUpdate' in value) {
      const redacted = status(value.statusUpdate.status);
      return redacted === value.statusUpdate.status ? value : { statusUpdate: withFields(value.statusUpdate, { status: redacted }) };
    }
    return value;
  }

  return { message, task, event };
}

/**
 * The innermost decorator: every answer and streamed event of the agent redacted, so nothing above it
 * (registry, subscribers, callers, logs) ever holds a secret the agent echoed.
 */
export function redacting(inner: AgentPort, redaction: Redaction): AgentPort {
  const events = (source: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> => mapIterable(source, redaction.event);
  return overlay(inner, {
    async sendMessage(request, ctx) {
      // The rest of a turn read on past its answer (read-on.ts) is redacted as the turn's stream would be.
      const reading = readingOn(request, ctx, events);
      try {
        return redaction.event(await inner.sendMessage(request, reading.ctx)) as Awaited<ReturnType<AgentPort['sendMessage']>>;
      } finally {
        reading.answered();
      }
    },
    sendStreamingMessage: (request, ctx) => events(inner.sendStreamingMessage(request, ctx)),
    subscribeToTask: (request, ctx) => events(inner.subscribeToTask(request, ctx)),
    getTask: async (request, ctx) => redaction.task(await inner.getTask(request, ctx)),
    cancelTask: async (request, ctx) => redaction.task(await inner.cancelTask(request, ctx)),
  });
}
