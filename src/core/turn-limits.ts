import type { LimitsConfig } from '../config/limits-schema.js';
import {
  A2AError,
  type Message,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type SubscribeToTaskRequest,
} from '../model/index.js';
import { messageEntry, type EntryDeps } from './admission.js';
import type { AgentPort, CallContext } from './agent-port.js';
import type { RecordedState } from './context-lanes.js';
import { countsPerKey } from './counts-per-key.js';
import { recordedStateFor } from './dead-holders.js';
import { deferIterable, tapIterable } from './iterables.js';
import { overlay } from './overlay.js';
import { streamTurnNaming, type TurnHold } from './turn-naming.js';

/** A turn's hold on one of its client's slots; `release` may be called any number of times, it counts once. */
export interface TurnSlot {
  release(): void;
  /**
   * Names the slot's turn to the other replicas, as a context lane does (Lease): slots shared through Redis, so
   * that another replica frees the slot of a holder that died once the registry records its turn over.
   */
  names?: TurnHold;
}

/** A slot, or undefined at the cap; a promise only from slots that must ask elsewhere (Redis), so the in-process ones cost no tick. */
export type TakenSlot = TurnSlot | undefined | Promise<TurnSlot | undefined>;

/**
 * The turns each client has in flight, against its cap: in this process (createTurnSlots) or shared by
 * every replica through Redis (turn-slots-redis.ts). A client is a credential's name when it has one, so
 * the old and the new key of a rotation (one client to the operator) share one count, else the
 * credential's principal; all anonymous callers of a surface are one principal.
 */
export interface TurnSlots {
  /**
   * A slot for a turn of the caller's client, or undefined when the client is at its cap. With `recordedState`, at
   * the cap a slot whose holder missed a renewal and whose turn the registry records over is taken over (its
   * holder died; context-lanes.ts says the same of a lane).
   */
  take(ctx: CallContext, recordedState?: RecordedState): TakenSlot;
  /** The caller's client's cap; 0: none. */
  capOf(ctx: Pick<CallContext, 'client'>): number;
  /** Turns the caller's client has in flight now. */
  inFlight(ctx: Pick<CallContext, 'principal' | 'client'>): number | Promise<number>;
  /** Lets go of what the slots own (a Redis connection); slots still held by then are not given back. */
  close(): Promise<void>;
}

/** Slots counted in this process: they answer at once. */
export interface LocalTurnSlots extends TurnSlots {
  take(ctx: CallContext): TurnSlot | undefined;
  inFlight(ctx: Pick<CallContext, 'principal' | 'client'>): number;
}

export const UNCOUNTED: TurnSlot = { release: () => undefined };

/** Whom a turn counts for: the credential's name (all its keys), else the credential itself. */
export const clientKey = (ctx: Pick<CallContext, 'principal' | 'client'>): string =>
  ctx.client === undefined ? ctx.principal : `name\u0000${ctx.client}`;

/** The cap of each client under `limits`; undefined when no client has one. */
export function capsOf(limits: LimitsConfig): TurnSlots['capOf'] | undefined {
  const perClient = limits['turns-in-flight-per-client'];
  const byName = new Map(Object.entries(limits['turns-in-flight-by-name']));
  if (perClient === 0 && [...byName.values()].every((cap) => cap === 0)) return undefined;
  return (ctx) => (ctx.client === undefined ? undefined : byName.get(ctx.client)) ?? perClient;
}

/**
 * The slot `held` is, given back through `free(held)` on the first release or when the caller's
 * signal aborts (the caller left, or the gateway shuts down: its turn no longer counts, whatever its
 * stream does next), and never again.
 */
export function holdSlot<T>(ctx: CallContext, held: T, free: (held: T) => void): TurnSlot {
  let holding = true;
  const release = (): void => {
    if (!holding) return;
    holding = false;
    free(held);
    ctx.signal.removeEventListener('abort', release);
  };
  if (ctx.signal.aborted) release();
  else ctx.signal.addEventListener('abort', release, { once: true });
  return { release };
}

/** The slots `limits` asks for, counted in this process; undefined when no client has a cap. */
export function createTurnSlots(limits: LimitsConfig): LocalTurnSlots | undefined {
  const capOf = capsOf(limits);
  if (!capOf) return undefined;
  const counts = countsPerKey();
  return {
    capOf,
    inFlight: (ctx) => counts.of(clientKey(ctx)),
    take(ctx) {
      const cap = capOf(ctx);
      if (cap === 0) return UNCOUNTED;
      const key = clientKey(ctx);
      if (counts.add(key) > cap) {
        counts.remove(key);
        return undefined;
      }
      return holdSlot(ctx, key, counts.remove);
    },
    close: async () => undefined,
  };
}

/** The slots, and who is told of a refusal. */
export interface TurnLimits {
  slots: TurnSlots;
  /** Told of each refused turn (the metrics). */
  refused?(ctx: CallContext): void;
}

/** The refusal of a turn past its client's cap, told to `limits.refused` first. */
export function refusedTurn(limits: TurnLimits, ctx: CallContext): A2AError {
  limits.refused?.(ctx);
  return A2AError.tooManyTurnsInFlight(limits.slots.capOf(ctx));
}

/**
 * Whether the caller's client is below its cap now: a glance, not a hold, for work a turn would do
 * before the core takes its slot (the facade's URL image fetches), so a turn that will be refused does
 * none of it. A turn let in at the cap (a permission answer riding along) is told no here.
 */
export function belowCap(slots: TurnSlots, ctx: Pick<CallContext, 'principal' | 'client'>): boolean | Promise<boolean> {
  const cap = slots.capOf(ctx);
  if (cap === 0) return true;
  const inFlight = slots.inFlight(ctx);
  return inFlight instanceof Promise ? inFlight.then((count) => count < cap) : inFlight < cap;
}

/** The caller's slot, else the refusal at its client's cap; a promise only when the slots answered with one. */
export function slotOrRefusal(limits: TurnLimits, ctx: CallContext): TurnSlot | Promise<TurnSlot> {
  const taken = limits.slots.take(ctx);
  if (taken instanceof Promise) return taken.then((slot) => slot ?? refuse(limits, ctx));
  return taken ?? refuse(limits, ctx);
}

function refuse(limits: TurnLimits, ctx: CallContext): never {
  throw refusedTurn(limits, ctx);
}

export type TurnLimitDeps = TurnLimits & EntryDeps;

/**
 * A client's turns in flight (SendMessage until answered, SendStreamingMessage until its stream ends or
 * its caller leaves) capped; the turn past the cap is refused before anything else is asked, in the
 * caller's protocol (A2AError.tooManyTurnsInFlight: HTTP 429 with Retry-After, gRPC RESOURCE_EXHAUSTED).
 * A message that answers a paused turn (iac-code's permission prompts) is let in even at the cap: its
 * turn holds a slot already, and refusing the answer would stall that turn until the agent gives up.
 *
 * A caller's SubscribeToTask holds a slot as a stream does: it holds an upstream connection for as long
 * (each open stream does, `upstream.connections`), so a client that could open subscriptions without
 * bound could hold every connection to the agent and starve the other clients. The gateway's own
 * subscriptions (a push follow, the rest of a turn a shutdown cut: `ownerVouched`) are not the caller's
 * doing and are bounded elsewhere (`push-follow-max-per-owner`). The other methods are not counted.
 */
export function limitingTurns(inner: AgentPort, deps: TurnLimitDeps): AgentPort {
  const { slots } = deps;

  /** The turn's slot; at the cap, none for a paused turn's answer, else the refusal. */
  async function slotFor(message: Message | undefined, ctx: CallContext): Promise<TurnSlot> {
    const taken = slots.take(ctx, recordedStateFor(deps.registry, ctx));
    const slot = taken instanceof Promise ? await taken : taken;
    if (slot) return slot;
    // Only asked at the cap: a turn below it pays nothing for the rule.
    if (message && (await messageEntry(message, ctx, deps)).ridesAlong) return UNCOUNTED;
    throw refusedTurn(deps, ctx);
  }

  /**
   * A stream holding its slot from its first pull (a refusal is the stream's first error, as admission's lane
   * is) to its end, naming the task it follows as its events come (a dead holder's slot is freed by it).
   */
  const heldStream = (message: Message | undefined, ctx: CallContext, open: () => AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> =>
    deferIterable(async () => {
      const slot = await slotFor(message, ctx);
      const nameTurn = slot.names && streamTurnNaming(slot.names, deps.settling, message?.taskId);
      try {
        return tapIterable(open(), { item: nameTurn, end: slot.release });
      } catch (error) {
        slot.release();
        throw error;
      }
    });

  return overlay(inner, {
    async sendMessage(request: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
      const slot = await slotFor(request.message, ctx);
      // As its lane does (admission.ts): a follow-up's turn is over once its task is recorded finished.
      if (request.message.taskId) slot.names?.runsTask(request.message.taskId, { onlyFinishedEnds: true });
      try {
        return await inner.sendMessage(request, ctx);
      } finally {
        slot.release();
      }
    },
    sendStreamingMessage: (request: SendMessageRequest, ctx: CallContext): AsyncIterable<StreamResponse> =>
      heldStream(request.message, ctx, () => inner.sendStreamingMessage(request, ctx)),
    subscribeToTask: (request: SubscribeToTaskRequest, ctx: CallContext): AsyncIterable<StreamResponse> =>
      ctx.ownerVouched ? inner.subscribeToTask(request, ctx) : heldStream(undefined, ctx, () => inner.subscribeToTask(request, ctx)),
  });
}
