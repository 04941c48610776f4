import type { MappingProfile } from '../mappings/index.js';
import { renamedTask, type Task } from '../model/index.js';
import { timedSignal } from '../timed-signal.js';
import { v025Payload } from './payload.js';
import type { PushLogger } from './queue/types.js';

/** What a 0.2.5 body is rendered for. */
export interface V025BodyFor {
  /** The config's owner. */
  owner: string;
  /** The id the owner named the task by, when it chose one. */
  clientTaskId?: string;
  /**
   * The change ends the turn (a terminal or interrupted state): the body is the turn's last word, worth asking the
   * agent for. The other changes (`push-events: all`) come once per streamed piece.
   */
  turnEnded: boolean;
}

/**
 * The 0.2.5 Task a receiver is pushed, as the 0.2.5 facade's `tasks/get` answers its caller (the facade's
 * reply, profile, language and the caller's task id, none of the gateway's own metadata). The facade makes it
 * and the app hands it over (push reads no surface); `task` is the registry's copy, what the body is made of
 * when the renderer does not ask the agent. `signal` aborts once push stops waiting for it.
 */
export type V025TaskRenderer = (task: Task, body: V025BodyFor, signal: AbortSignal) => Promise<unknown>;

/**
 * How long a body may take to render: it asks the agent for the task, on the task's chain of notifications,
 * which waits meanwhile. Past it the registry's copy is sent, translated.
 */
export const RENDER_BOUND_MS = 10_000;

export interface V025BodyDeps {
  profile: MappingProfile;
  logger: PushLogger;
  /** The facade's renderer once it is mounted; absent (no facade): the registry's copy, translated. */
  renderV025?: () => V025TaskRenderer | undefined;
}

const rendered = async (render: V025TaskRenderer, task: Task, body: V025BodyFor): Promise<string> => {
  const bound = timedSignal(undefined, RENDER_BOUND_MS);
  try {
    const aborted = new Promise<never>((_resolve, reject) =>
      bound.signal.addEventListener('abort', () => reject(new Error(`not rendered within ${RENDER_BOUND_MS} ms`)), { once: true }),
    );
    return JSON.stringify(await Promise.race([render(task, body, bound.signal), aborted]));
  } finally {
    bound.clear();
  }
};

/**
 * A 0.2.5 receiver's body: the facade's Task when a facade runs, else the registry's copy translated. A
 * renderer that fails or takes too long costs the receiver only the facade's shape, never the notification.
 */
/** The task translated as it stands, under the id its caller chose when it chose one. */
export const translatedV025 = (deps: Pick<V025BodyDeps, 'profile'>, task: Task, clientTaskId: string | undefined): string =>
  v025Payload(clientTaskId ? renamedTask(task, clientTaskId) : task, deps.profile);

export async function v025Body(deps: V025BodyDeps, task: Task, body: V025BodyFor): Promise<string> {
  const translated = () => translatedV025(deps, task, body.clientTaskId);
  const render = deps.renderV025?.();
  if (!render) return translated();
  try {
    return await rendered(render, task, body);
  } catch (error) {
    deps.logger.warn(
      { err: error, taskId: task.id },
      "A2A 0.2.5 push body could not be rendered as the facade's tasks/get; the recorded task is sent",
    );
    return translated();
  }
}
