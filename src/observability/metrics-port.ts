import type { AgentPort, CallContext, CallTiming, Upstream } from '../core/agent-port.js';
import type { CardFetcher } from '../core/card-refresher.js';
import { A2AError, eventTaskState, type StreamResponse, type TaskState } from '../model/index.js';
import { tapIterable } from '../core/iterables.js';
import { DONE, Forwarder } from '../core/iterable-stages.js';
import { callContextOf, methodName, overlay, STREAM_METHODS, UNARY_METHODS } from './port-methods.js';
import type { GatewayMetrics, UpstreamOutcome } from './metrics.js';

export type EventKind = 'task' | 'message' | 'status-update' | 'artifact-update';

function kindOf(event: StreamResponse): EventKind {
  if ('task' in event) return 'task';
  if ('message' in event) return 'message';
  if ('statusUpdate' in event) return 'status-update';
  return 'artifact-update';
}

/**
 * A stream's events are counted in the stream and added to the counter every this many, and at its
 * end: a counter update (its labels hashed) per event was a twelfth of a long stream's instructions.
 */
export const EVENTS_PER_COUNT = 64;

/**
 * Counts the events a 1.0 caller's stream carries and the task states it reaches (once per change). The
 * facade's calls pass uncounted: its reply reducer, above this port, makes other events and states of
 * them, which are counted where its caller receives them (facade-events.ts).
 */
export function meteredPort<P extends AgentPort>(port: P, metrics: GatewayMetrics): P {
  function counted(events: AsyncIterable<StreamResponse>, ctx: CallContext): AsyncIterable<StreamResponse> {
    if (ctx.surface === 'v025') return events;
    let last: TaskState | undefined;
    const uncounted = new Map<EventKind, number>();
    let pending = 0;
    const count = (): void => {
      for (const [kind, events] of uncounted) metrics.streamEvents(ctx.surface, kind, events);
      uncounted.clear();
      pending = 0;
    };
    return tapIterable(events, {
      item(event) {
        const kind = kindOf(event);
        uncounted.set(kind, (uncounted.get(kind) ?? 0) + 1);
        if (++pending >= EVENTS_PER_COUNT) count();
        const state = eventTaskState(event);
        if (state && state !== last) metrics.taskState(ctx.surface, state);
        last = state ?? last;
      },
      end: count,
    });
  }
  return overlay(port, {
    async sendMessage(request, ctx) {
      const answer = await port.sendMessage(request, ctx);
      if ('task' in answer && ctx.surface !== 'v025') metrics.taskState(ctx.surface, answer.task.status.state);
      return answer;
    },
    sendStreamingMessage: (request, ctx) => counted(port.sendStreamingMessage(request, ctx), ctx),
    subscribeToTask: (request, ctx) => counted(port.subscribeToTask(request, ctx), ctx),
  });
}

/** A failed call's outcome: `refused` when the agent refused the gateway's credentials (the upstream clients tell it), else `error`. */
const failureOutcome = (error: unknown): UpstreamOutcome =>
  error instanceof A2AError && error.upstreamFault === 'credentials' ? 'refused' : 'error';

/**
 * One call to the upstream that answers once, timed for the upstream histograms and counted by how it went: a throw by
 * failureOutcome, a result by `outcomeOf` (default `ok`). Its time is added to the inbound request's record (`timing`),
 * so that the gateway's own share can be told apart. The metered upstream's unary calls go through it, and so do the
 * calls the facade relays to a 0.2.5/0.3 agent past the core (surfaces/v025/relay/relay-observed.ts), named by their 0.2.5 method:
 * a relayed stream's outcome is known only at its end (the error event it ended with), a promise the count waits for,
 * timed all the same to the agent's answer.
 */
export async function timedUpstreamCall<T>(
  metrics: GatewayMetrics,
  method: string,
  timing: CallTiming | undefined,
  call: () => Promise<T>,
  outcomeOf?: (result: T) => UpstreamOutcome | Promise<UpstreamOutcome>,
): Promise<T> {
  const started = performance.now();
  let outcome: UpstreamOutcome | Promise<UpstreamOutcome> = 'error';
  try {
    const result = await call();
    outcome = outcomeOf ? outcomeOf(result) : 'ok';
    return result;
  } catch (error) {
    outcome = failureOutcome(error);
    throw error;
  } finally {
    const seconds = (performance.now() - started) / 1000;
    if (timing) timing.upstreamSeconds += seconds;
    if (typeof outcome === 'string') metrics.upstreamCall(method, outcome, seconds);
    else void outcome.then((told) => metrics.upstreamCall(method, told, seconds));
  }
}

/**
 * `source`, telling `failed` the error its first read fails with: a stream the agent refuses fails there, at its
 * headers. Only the first read is watched; then it is the source's own, and a Stage above reads the source through this
 * (a Forwarder), so the stream's run of layers goes on below the metered tap and an event costs nothing here.
 */
class FirstReadWatched<T> extends Forwarder implements AsyncIterableIterator<T> {
  readonly #source: AsyncIterator<T>;
  #failed: ((error: unknown) => void) | undefined;

  constructor(source: AsyncIterator<T>, failed: (error: unknown) => void) {
    super();
    this.#source = source;
    this.#failed = failed;
  }

  forwardsTo(): AsyncIterator<T> | undefined {
    return this.#failed ? undefined : this.#source;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    const failed = this.#failed;
    if (!failed) return this.#source.next();
    this.#failed = undefined;
    return this.#source.next().catch((error: unknown) => {
      failed(error);
      throw error;
    });
  }

  async return(): Promise<IteratorResult<T>> {
    return (await this.#source.return?.()) ?? DONE;
  }
}

const watchFirstRead = <T>(source: AsyncIterable<T>, failed: (error: unknown) => void): AsyncIterable<T> => ({
  [Symbol.asyncIterator]: () => new FirstReadWatched(source[Symbol.asyncIterator](), failed),
});

/**
 * Times every call to the upstream (streams: to their first event) for the upstream histograms, and
 * adds it to the inbound request's record so the gateway's own share can be told apart. A stream adds its
 * whole time, to its end (or to when its reader let it go): a blocking call served from one (the facade's
 * message/send reads the turn as SendStreamingMessage) waits on the upstream that long. The time between
 * events that the reader spends on each is counted as the upstream's too (timing each read would cost two
 * clock reads per event), so such a call's gateway share is a floor.
 */
export function meteredUpstream<U extends Upstream>(upstream: U, metrics: GatewayMetrics): U {
  const methods: Record<string, unknown> = {};
  for (const name of UNARY_METHODS) {
    const method = methodName(name);
    methods[name] = (...args: unknown[]) =>
      timedUpstreamCall(metrics, method, (callContextOf(args) as CallContext | undefined)?.timing, () =>
        (upstream[name] as (...a: unknown[]) => Promise<unknown>).apply(upstream, args),
      );
  }
  for (const name of STREAM_METHODS) {
    methods[name] = (request: never, ctx: CallContext) => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      let first = true;
      let failed: UpstreamOutcome = 'error';
      const source = watchFirstRead(upstream[name](request, ctx), (error) => (failed = failureOutcome(error)));
      return tapIterable(source, {
        item() {
          if (!first) return;
          first = false;
          metrics.upstreamCall(methodName(name), 'ok', seconds());
        },
        end(how) {
          // One never read was never sent: it took no upstream time.
          if (how === 'unread') return;
          const took = seconds();
          if (ctx.timing) ctx.timing.upstreamSeconds += took;
          // A stream that ends before its first event is counted by how it ended.
          if (first) metrics.upstreamCall(methodName(name), how === 'done' ? 'ok' : failed, took);
        },
      });
    };
  }
  return overlay(upstream, methods as Partial<AgentPort>);
}

/** Counts card reads by outcome. */
export function meteredCards(source: CardFetcher, metrics: GatewayMetrics): CardFetcher {
  return {
    async fetchCard(signal) {
      try {
        const card = await source.fetchCard(signal);
        metrics.cardRefresh(true);
        return card;
      } catch (error) {
        metrics.cardRefresh(false);
        throw error;
      }
    },
  };
}
