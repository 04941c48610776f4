import type { StreamResponse } from '../model/index.js';
import { timedSignal } from '../timed-signal.js';
import { v1Payload } from './payload.js';
import type { PushLogger } from './queue/types.js';

/**
 * What a 1.0 caller is shown of an event's files (with `upstream.inline-artifacts`, the bytes of iac-code's
 * artifacts instead of their opaque URL), read as its calls read them. The app hands it over (gateway-push.ts):
 * push reads no artifact folder of its own. `signal` aborts once push stops waiting: a file not read by then
 * keeps its URL.
 */
export type V1EventInliner = (event: StreamResponse, signal: AbortSignal) => Promise<StreamResponse>;

/**
 * How long a 1.0 body's files may take to read: the task's later notifications wait behind it. Past it the
 * files not read yet are sent as their URL.
 */
export const INLINE_BOUND_MS = 10_000;

export interface V1BodyDeps {
  logger: PushLogger;
  /** Absent (no artifact folder, or `upstream.inline-artifacts` off): the event as recorded, URLs and all. */
  inlineV1?: V1EventInliner;
}

/**
 * A 1.0 receiver's body: the event as the registry passed it on, its files shown as the receiver's own calls
 * (SendMessage, GetTask, ListTasks) show them. An inliner that fails costs the receiver only the bytes, never
 * the notification.
 */
export async function v1Body(deps: V1BodyDeps, event: StreamResponse): Promise<string> {
  const { inlineV1 } = deps;
  if (!inlineV1) return v1Payload(event);
  const bound = timedSignal(undefined, INLINE_BOUND_MS);
  try {
    return v1Payload(await inlineV1(event, bound.signal));
  } catch (error) {
    deps.logger.warn({ err: error }, "A2A 1.0 push body: the files' content could not be read; their URLs are sent");
    return v1Payload(event);
  } finally {
    bound.clear();
  }
}
