import type { SseFrame } from '../surfaces/shared/sse.js';
import { answeredV025TaskState } from '../surfaces/shared/jsonrpc-endpoint.js';
import type { GatewayMetrics, TaskStateReason } from './metrics.js';
import { EVENTS_PER_COUNT, type EventKind } from './metrics-port.js';

const KINDS: ReadonlySet<string> = new Set<EventKind>(['task', 'message', 'status-update', 'artifact-update']);

/**
 * The 0.2.5 event a facade frame carries, and the task state it shows, as the facade noted them on the
 * frame (`SseFrame.shows`); nothing for an error frame. The facade's reply reducer makes its own events
 * above the port (six artifact chunks where the agent sent one, `completed` where iac-code's turn ended
 * `input-required`), so they are read from what is written, not from the agent's events.
 */
function eventOf(frame: SseFrame): { kind: EventKind; state?: string } | undefined {
  const shows = frame.shows;
  if (shows === undefined || !KINDS.has(shows.kind)) return undefined;
  return shows.state === undefined ? { kind: shows.kind as EventKind } : { kind: shows.kind as EventKind, state: shows.state };
}

/**
 * Why a facade turn shown `failed` failed, when the agent did not fail it: once the gateway's drain time is over
 * (`shutdown` aborted) the drain cut it: every call still open then is ended with "shutting down", and the facade
 * tells a turn's user that the agent goes on with it and that their next message shows its end
 * (words.turnCutByShutdown), whose state is counted then. A blocking call whose caller hung up (`callerLeft`) is
 * answered `failed` to nobody: its caller read nothing, and the agent goes on with the turn. Else the reason the
 * facade noted itself (`noted`, on the request's log fields): `timeout`, its `message/send` outlasted
 * `upstream.request-timeout-ms` and its user read that the agent is still working on it (send.ts). (A `message/stream`
 * whose first event outlasts its bound shows no state: it ends with an error frame.) Counted apart, so
 * that an alert on the turns the agent failed fires neither on every rollout, nor on every user (or Bailian time-out)
 * that stops waiting, nor on every turn longer than the gateway waits.
 */
const reasonOf = (
  state: string,
  shutdown: AbortSignal | undefined,
  callerLeft?: () => boolean,
  noted?: TaskStateReason,
): TaskStateReason | undefined => (state !== 'failed' ? undefined : shutdown?.aborted ? 'shutdown' : callerLeft?.() ? 'caller_left' : noted);

/**
 * Counts the events of one facade stream as its caller receives them, for
 * `a2a_bridge_stream_events_total{surface="v025"}`, and each change of the task state they show, for
 * `a2a_bridge_task_states_total{surface="v025"}`; added every EVENTS_PER_COUNT events and at `end`.
 */
export function facadeEventCounter(metrics: GatewayMetrics, shutdown?: AbortSignal): { frame(frame: SseFrame): void; end(): void } {
  const uncounted = new Map<EventKind, number>();
  let pending = 0;
  let last: string | undefined;
  const count = (): void => {
    for (const [kind, events] of uncounted) metrics.streamEvents('v025', kind, events);
    uncounted.clear();
    pending = 0;
  };
  return {
    frame(frame) {
      const event = eventOf(frame);
      if (!event) return;
      uncounted.set(event.kind, (uncounted.get(event.kind) ?? 0) + 1);
      if (++pending >= EVENTS_PER_COUNT) count();
      if (event.state !== undefined && event.state !== last) metrics.taskState('v025', event.state, reasonOf(event.state, shutdown));
      last = event.state ?? last;
    },
    end: count,
  };
}

/** The state a facade `message/send`'s Task was answered with, and why the gateway, not the agent, ended it so. */
export interface FacadeAnswer {
  state: string;
  reason: TaskStateReason | undefined;
}

/**
 * A facade `message/send` answered with a Task: the state its caller reads, once. `callerLeft` is asked only of
 * a failed answer (most are not); `noted`: the reason the facade noted on the request's log fields (`stateReason`).
 */
export function countFacadeAnswer(
  metrics: GatewayMetrics,
  response: Response,
  shutdown: AbortSignal | undefined,
  callerLeft: () => boolean,
  noted?: TaskStateReason,
): FacadeAnswer | undefined {
  const state = answeredV025TaskState(response);
  if (state === undefined) return undefined;
  const reason = reasonOf(state, shutdown, callerLeft, noted);
  metrics.taskState('v025', state, reason);
  return { state, reason };
}
