import type { MappingProfile } from '../../mappings/index.js';
import { A2AError, type StreamResponse, type Task } from '../../model/index.js';
import { isV025FinalState, parseV025StreamEvent, type V025StreamEvent, type V025Task } from '../../protocol/v025/index.js';
import { createV025ToV1StreamTranslator, taskToV1, type V025ToV1StreamTranslator } from '../../translate/index.js';
import { isEmptyResult } from '../jsonrpc-client.js';
import { eventParsedOrRepaired, v025Repaired } from '../empty-parts.js';

/**
 * Raw 0.2.5 stream results → 1.0 events. The 1.0 stream ends right after the event that ends the
 * 0.2.5 turn (`final: true` or a Message) even when the upstream keeps its connection open: leaving
 * the loop returns `results`, which closes the upstream response.
 */
export async function* translateV025Stream(
  results: AsyncIterable<unknown>,
  translator: V025ToV1StreamTranslator,
  skip: (event: V025StreamEvent) => boolean = () => false,
): AsyncGenerator<StreamResponse> {
  for await (const result of results) {
    if (isEmptyResult(result)) continue;
    // An event without content is left out (empty-parts.ts): an artifact-update without parts.
    const event = eventParsedOrRepaired(result, parseV025StreamEvent, v025Repaired);
    if (event === undefined || skip(event)) continue;
    const { events, done } = translator.push(event);
    yield* events;
    if (done) return;
  }
}

export interface SubscribeV025Options {
  taskId: string;
  profile: MappingProfile;
  /** tasks/get of the task: its snapshot becomes event 1 (0.2.5 does not promise one). */
  getTask(): Promise<V025Task>;
  /** tasks/resubscribe: the raw results of the upstream stream. */
  resubscribe(): AsyncIterable<unknown>;
}

/** What a repeated snapshot would tell a subscriber that the first one did not. */
const progressOf = (task: Task): string => JSON.stringify([task.status, task.artifacts ?? []]);

/**
 * SubscribeToTask on a 0.2.5 agent: the task from tasks/get first, then tasks/resubscribe's events.
 * A task whose turn is over (terminal or input-required: a 0.2.5 server has sent `final` for it) has
 * nothing to follow, so it is refused like iac-code refuses it (-32001 "not active") instead of
 * waiting on a stream that will never speak. A Task snapshot the upstream opens its stream with is
 * dropped when it tells nothing new (a2a-js 0.2.5 sends one, with the full history).
 */
export async function* subscribeV025(options: SubscribeV025Options): AsyncGenerator<StreamResponse> {
  const snapshot = await options.getTask();
  if (isV025FinalState(snapshot.status.state)) {
    throw A2AError.taskNotActive(options.taskId);
  }
  const { profile } = options;
  const translator = createV025ToV1StreamTranslator({ profile, contextId: snapshot.contextId });
  // The translator passes a leading Task through as is; pushing it marks the stream as started.
  yield* translator.push(snapshot).events;
  const seen = progressOf(taskToV1(snapshot, profile));
  let leading = true;
  const repeatsSnapshot = (event: V025StreamEvent): boolean => {
    const isLeading = leading;
    leading = false;
    return isLeading && event.kind === 'task' && event.id === snapshot.id && progressOf(taskToV1(event, profile)) === seen;
  };
  yield* translateV025Stream(options.resubscribe(), translator, repeatsSnapshot);
}
