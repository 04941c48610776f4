import { Command } from 'ioredis';
import type { CommandSender } from './redis-command-failures.js';

/**
 * How long `/ready` waits for a connection's PING: below the 1 s a Kubernetes readiness probe waits by
 * default, and far above what a Redis that serves takes (a PING queues behind the connection's commands).
 */
export const READY_PING_WITHIN_MS = 750;
/** A PING's answer holds this long: probes come as often as a balancer likes, PINGs at most once a second per connection. */
export const READY_PING_FRESH_MS = 1_000;

/** What the probe reads of a connection (ioredis's `Redis`). */
export interface PingedRedis extends CommandSender {
  readonly status?: string;
  once(event: 'end', listener: () => void): unknown;
}

export interface AnsweringProbe {
  /** Whether the connection answered a PING within READY_PING_WITHIN_MS, asked at most every READY_PING_FRESH_MS; true while it is not connected (its status tells that). */
  answering(): Promise<boolean>;
  /** Whether `command` is one of this probe's PINGs whose lateness it told already (so it is not told again when it times out). */
  toldLate(command: Command): boolean;
}

/**
 * Asks `connection` for a PING when asked whether it answers, unless an answer is fresh. A PING that has no
 * answer within `withinMs` is told to `late` (once) and the connection is not answering until that PING is
 * answered or fails: no second PING piles up behind it while Redis is frozen, and its answer at the thaw
 * says at once that Redis answers again.
 */
export function answeringProbe(
  connection: PingedRedis,
  late: (command: Command) => void,
  options: { withinMs?: number; freshMs?: number; now?: () => number } = {},
): AnsweringProbe {
  const withinMs = options.withinMs ?? READY_PING_WITHIN_MS;
  const freshMs = options.freshMs ?? READY_PING_FRESH_MS;
  const now = options.now ?? Date.now;
  let verdict = { answering: true, at: -Infinity };
  // The PING sent and not settled; `decided` once it answered, failed, or passed its bound.
  let asking: { decided: Promise<boolean>; overdue: boolean } | undefined;
  const told = new WeakSet<Command>();

  function ask(): Promise<boolean> {
    const ping = new Command('ping', []);
    let decide!: (answering: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (decide = resolve));
    const current = { decided, overdue: false };
    const timer = setTimeout(() => {
      current.overdue = true;
      verdict = { answering: false, at: now() };
      told.add(ping);
      late(ping);
      decide(false);
    }, withinMs);
    timer.unref();
    const settle = (answering: boolean) => {
      clearTimeout(timer);
      verdict = { answering, at: now() };
      if (asking === current) asking = undefined;
      decide(answering);
    };
    ping.promise.then(
      () => settle(true),
      () => settle(false),
    );
    asking = current;
    connection.sendCommand(ping);
    return decided;
  }

  return {
    answering() {
      if (connection.status !== 'ready') return Promise.resolve(true);
      if (asking) return asking.overdue ? Promise.resolve(false) : asking.decided;
      if (now() - verdict.at < freshMs) return Promise.resolve(verdict.answering);
      return ask();
    },
    toldLate: (command) => told.has(command),
  };
}

/**
 * The stores every call depends on (the task registry, the context lanes, the capped clients' turn slots,
 * the facade's task aliases): `/ready` asks their connections. Not the push queue's nor the push configs'
 * (a notification is held while its Redis is away, calls go on), nor the facade's conversation languages
 * (read with a fallback): a `push-redis-url` of its own that froze must not take every replica out of a
 * balancer.
 */
const CALLS_DEPEND_ON: ReadonlySet<string> = new Set(['task-registry', 'context-lanes', 'turn-slots', 'task-aliases']);

/**
 * The probes of the connections `/ready` asks, process-wide like the error counts: the connections are
 * opened deep in the stores, which only report them here (watchRedis). A connection leaves once it ended.
 */
const probes = new Map<PingedRedis, { store: string; probe: AnsweringProbe }>();

/** Whether `/ready` asks the connections of `store`. */
export const readyDependsOn = (store: string): boolean => CALLS_DEPEND_ON.has(store);

export function askWhenReadyIsProbed(connection: PingedRedis, store: string, probe: AnsweringProbe): void {
  probes.set(connection, { store, probe });
  connection.once('end', () => probes.delete(connection));
}

/** The stores one of whose connections did not answer its PING in time (READY_PING_WITHIN_MS), sorted; asked all at once. */
export async function storesNotAnswering(): Promise<string[]> {
  const verdicts = await Promise.all([...probes.values()].map(async ({ store, probe }) => ((await probe.answering()) ? undefined : store)));
  return [...new Set(verdicts.filter((store): store is string => store !== undefined))].sort();
}
