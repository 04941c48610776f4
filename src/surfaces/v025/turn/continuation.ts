import type { LetGo } from '../../../core/context-lanes.js';
import type { TurnLetGo } from '../../../core/gateway.js';
import type { TaskRegistry } from '../../../core/task-registry/types.js';
import { withFields, isActiveState, type SendMessageRequest, type Task } from '../../../model/index.js';
import { wokenWithin } from '../../../woken-within.js';

export interface Turn {
  /** The request to send: the caller's, or aimed at the context's paused task. */
  request: SendMessageRequest;
  /** The task the request continues (the context's paused task, or the one it names), as it was before this turn. */
  previous?: Task;
  /**
   * The caller was never shown how `previous` came to wait: its turn broke off while the agent worked, and
   * only the agent, asked now, says it waits (for an answer to a question the caller has not read). The task
   * as the registry last saw it, which is what the caller was shown of it.
   */
  unseen?: { recorded: Task };
  /** The turn is over (idempotent). */
  end(): void;
  /**
   * Its caller was answered at its bound, and it is followed until the agent's first event names its task
   * (unwatched-turns.ts): the conversation's next message waits for its end, up to FOLLOWED_WAIT_MS, to read its
   * reply (cut-turns.ts), rather than being refused at once as a turn in progress.
   */
  followed?(): void;
}

/** The task as the agent has it now (asked through the core, which records it); undefined when it cannot say. */
export type TaskLookup = (taskId: string) => Promise<Task | undefined>;

export interface Continuations {
  begin(request: SendMessageRequest, principal: string, lookup?: TaskLookup): Promise<Turn>;
  /**
   * `begin` for a message that opens a conversation under the context id the facade just made for it (begun-turn.ts
   * inItsOwnContext): nothing can be recorded under that id yet, so the registry is not asked for its latest task
   * (a round trip with `store: redis`). The turn runs on the context as begin's do.
   */
  opens(request: SendMessageRequest, principal: string): Turn;
  /**
   * Resolves once the conversation's turns running in this process have ended, or after LET_GO_MS; with none here,
   * once the caller's turn running on it on another replica has been let go, or after LET_GO_ELSEWHERE_MS: awaited
   * before the conversation's note of a cut turn is read (cut-turns.ts cutTurnOf), so that the turn its caller just
   * left is noted by then, wherever it ran. `held` when the wait gave up on a turn still running holding the
   * conversation's lane: the message is refused as a turn in progress. Let in, it would take the lane should the
   * turn let it go a moment later, and reach the agent as a turn of its own, its caller never shown the rest of the
   * turn they left (the note read before it was written).
   */
  previousEnded(principal: string, contextId: string | undefined): Promise<LetGo>;
}

/**
 * How long a message waits for the conversation's turn still running in this process. Bailian hangs up a stream
 * and sends the next message (its retry, the user sending again) at once: that message may be read before the
 * hung-up call's close is (measured: within a few ms after it), when the left turn still runs here and is not yet
 * noted, so it would be refused as a turn in progress rather than shown the left turn's rest. A turn whose caller
 * still watches it does not end so soon: its conversation's next message then reads the lane (up to LET_GO_MS more,
 * previousEnded), and is refused as before while the turn still holds it.
 */
export const LET_GO_MS = 100;

/**
 * The same wait for a turn running on another replica (`store: redis`, behind a load balancer): the message's
 * replica knows of no turn of its own and reads the context's lane in Redis until it is let go
 * (core/context-lanes-redis.ts letGo). Longer than LET_GO_MS: that replica must first read the hung-up call's close
 * and unwind the turn, each in an event loop this wait does not see, and on a loaded host it does so late. Measured
 * with the rounds of test/e2e/facade/unwatched-turns-other-replica.test.ts side by side on a busy 2-core host: its
 * release began up to ~400 ms after the message's wait did (crossing Redis and the next poll added little), when the
 * 150 ms this was before had ended: the message was refused as a turn in progress, or, the lane let go between the
 * read of the note and the lane, sent to the agent as a new turn (refused now: previousEnded says `held`). A message
 * that comes while the turn's caller still watches it on the other replica is refused this much later (1 s rather
 * than 150 ms); one with no turn running on its context waits for nothing (its lane's one read).
 */
export const LET_GO_ELSEWHERE_MS = 1_000;

/**
 * How long a message waits for the conversation's turn followed past its bound to its first event (Turn.followed):
 * its user was told the agent has not started yet and to write again in a moment, so that message comes while the
 * agent may still be quiet. It waits, then reads the turn's reply; the message again (its user resending it) so
 * joins the turn instead of running it twice. Past this, it is refused as a turn in progress, as before.
 */
export const FOLLOWED_WAIT_MS = 10_000;

/** The turns running on one conversation in this process, and the messages waiting for them to end (wokenWithin). */
interface Running {
  count: number;
  waiting?: Set<() => void>;
  /** One of them is followed past its bound to its first event (Turn.followed). */
  followed?: boolean;
}

/**
 * Multi-turn for callers that only know the contextId (Bailian sends no taskId): a follow-up goes to
 * the context's latest task when that task is still waiting for input upstream (iac-code ends every
 * turn in INPUT_REQUIRED and continues the conversation in the same task), else it starts a new task
 * in the context.
 *
 * The registry may have last seen that task working: its caller left mid-turn (Bailian hung up, a
 * message/send timed out) and the agent finished the turn unwatched. Then the agent is asked (`lookup`),
 * so the follow-up still reaches the task that waits for it rather than opening a second one beside it.
 *
 * While a facade turn runs on a context, a second message is NOT aimed at the paused task: the
 * registry may not have seen the running turn's first event yet, and a message naming a paused task
 * whose turn holds the lane would ride along into it. With the contextId alone, the core's lane
 * rejects it with a clear "turn in progress" error instead. A message that comes as its caller hangs up on that turn
 * waits a moment for the turn to be let go (previousEnded), and then reads its rest (cut-turns.ts): in this process,
 * or through the core's lanes (`letGoElsewhere`) when another replica runs it.
 */
export function createContinuations(registry: TaskRegistry, letGoElsewhere?: TurnLetGo): Continuations {
  const runningOn = new Map<string, Running>();
  const keyOf = (principal: string, contextId: string): string => `${principal}\u0000${contextId}`;

  const release = (key: string): void => {
    const turns = runningOn.get(key);
    if (!turns || --turns.count > 0) return;
    runningOn.delete(key);
    if (turns.waiting) for (const ended of turns.waiting) ended();
  };

  /** The context's latest task, asked of the agent when the registry last saw it running. */
  async function latestOf(
    contextId: string,
    principal: string,
    lookup: TaskLookup | undefined,
  ): Promise<{ latest?: Task; unseen?: { recorded: Task } }> {
    const latest = (await registry.latestInContext(contextId, principal))?.task;
    if (!latest || !lookup || !isActiveState(latest.status.state)) return latest ? { latest } : {};
    const asked = await lookup(latest.id).catch(() => undefined);
    return asked ? { latest: asked, unseen: { recorded: latest } } : { latest };
  }

  /** A turn counted as running on the conversation until its end; `busy`: another ran on it already. */
  const running = (principal: string, contextId: string) => {
    const key = keyOf(principal, contextId);
    const busy = runningOn.has(key);
    const turns = runningOn.get(key) ?? { count: 0 };
    turns.count++;
    runningOn.set(key, turns);
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      release(key);
    };
    const followed = (): void => void (turns.followed = true);
    return { busy, end, followed };
  };

  return {
    async begin(request, principal, lookup) {
      const { contextId, taskId } = request.message;
      const named = async (end: () => void): Promise<Turn> => {
        const previous = taskId ? await registry.get(taskId, principal).catch(() => undefined) : undefined;
        return previous ? { request, previous, end } : { request, end };
      };
      if (!contextId) return named(() => undefined);
      const { busy, end, followed } = running(principal, contextId);
      if (busy) return { request, end, followed };
      if (taskId) return withFields(await named(end), { followed });
      try {
        const { latest, unseen } = await latestOf(contextId, principal, lookup);
        if (latest?.status.state !== 'TASK_STATE_INPUT_REQUIRED') return { request, end, followed };
        const aimed = withFields(request, { message: withFields(request.message, { taskId: latest.id }) });
        return withFields({ request: aimed, previous: latest, end, followed }, unseen ? { unseen } : {});
      } catch (error) {
        end();
        throw error;
      }
    },
    opens(request, principal) {
      const { contextId } = request.message;
      if (!contextId) return { request, end: () => undefined };
      const { end, followed } = running(principal, contextId);
      return { request, end, followed };
    },
    async previousEnded(principal, contextId) {
      if (contextId === undefined) return 'free';
      const key = keyOf(principal, contextId);
      const turns = runningOn.get(key);
      // A turn here is this process's to let go, and says so at its end; the lanes are read when none runs here,
      if (!turns) return (await letGoElsewhere?.(contextId, principal, LET_GO_ELSEWHERE_MS)) ?? 'free';
      const followedBefore = turns.followed === true;
      await wokenWithin((turns.waiting ??= new Set()), followedBefore ? FOLLOWED_WAIT_MS : LET_GO_MS);
      // Followed from a moment ago: its caller's close was read after this message came (a hang-up before the agent's
      // first event, unwatched-turns.ts), and the message is the one its user sends next. It waits for it as well.
      if (!followedBefore && turns.followed && runningOn.get(key) === turns) await wokenWithin(turns.waiting, FOLLOWED_WAIT_MS);
      if (runningOn.get(key) !== turns) return 'let-go';
      // and when it did not end in time: it may still run holding the lane, or have paused on a question there (a
      // message naming its task answers it), or have let the lane go, its end still unwinding here. Without lanes
      // to read, it is taken to run.
      return letGoElsewhere ? letGoElsewhere(contextId, principal, LET_GO_MS) : 'held';
    },
  };
}
