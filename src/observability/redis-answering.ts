import { Command } from 'ioredis';
import { commandFailureKind, type CommandSender } from './redis-command-failures.js';

/**
 * How long a PING may go unanswered before its connection is not answering, when the connection's calls
 * have no bound of their own (`redis-command-timeout-ms: 0`): what that setting defaults to.
 */
export const READY_PING_DEFAULT_WITHIN_MS = 5_000;
/** A PING's answer holds this long: probes come as often as a balancer likes, PINGs at most once a second per connection. */
export const READY_PING_FRESH_MS = 1_000;

/** What the probe reads of a connection (ioredis's `Redis`). */
export interface PingedRedis extends CommandSender {
  readonly status?: string;
  readonly options?: { readonly commandTimeout?: number | undefined };
  once(event: 'end', listener: () => void): unknown;
}

export interface AnsweringProbe {
  /**
   * Whether the connection answers, at once, from what is known: false only while a PING has gone unanswered
   * past `withinMs` (until one is answered); true while it is not connected (its status tells that). Sends a
   * PING in the background when the last one settled over READY_PING_FRESH_MS ago and none is outstanding.
   */
  answering(): boolean;
  /** Whether `command` is one of this probe's PINGs whose lateness it told already (so it is not told again when it times out). */
  toldLate(command: Command): boolean;
}

/**
 * Sends `connection` a PING when asked whether it answers, unless one is outstanding or settled less than
 * `freshMs` ago, and never waits for it. A PING unanswered for `withinMs` (by default the bound the calls
 * use on that connection, its `commandTimeout`: a Redis slow but answering within it serves the calls, and
 * must not take every replica out of a balancer at once) is told to `late` (once), and the connection is
 * not answering until a PING is answered: no second PING piles up behind it while Redis is frozen, and its
 * answer at the thaw says at once that Redis answers again.
 */
export function answeringProbe(
  connection: PingedRedis,
  late: (command: Command, withinMs: number) => void,
  options: { withinMs?: number; freshMs?: number; now?: () => number } = {},
): AnsweringProbe {
  const withinMs = options.withinMs ?? (connection.options?.commandTimeout || READY_PING_DEFAULT_WITHIN_MS);
  const freshMs = options.freshMs ?? READY_PING_FRESH_MS;
  const now = options.now ?? Date.now;
  let answering = true;
  let settledAt = -Infinity;
  let asking: Command | undefined;
  const told = new WeakSet<Command>();

  const overdue = (ping: Command): void => {
    if (told.has(ping)) return;
    told.add(ping);
    answering = false;
    late(ping, withinMs);
  };

  function ask(): void {
    const ping = new Command('ping', []);
    // Set before ioredis sets the command's own timeout (sendCommand) to the same bound, so it fires first.
    const timer = setTimeout(() => overdue(ping), withinMs);
    timer.unref();
    const settle = (): void => {
      clearTimeout(timer);
      settledAt = now();
      if (asking === ping) asking = undefined;
    };
    // Reactions run in the order they were added: this one before watchCommands' (which skips a PING told late).
    ping.promise.then(
      () => {
        settle();
        answering = true;
      },
      (error: unknown) => {
        settle();
        // A connection closed under it says nothing of Redis answering: its status tells that.
        if (commandFailureKind(error) === 'timeout') overdue(ping);
      },
    );
    asking = ping;
    connection.sendCommand(ping);
  }

  return {
    answering() {
      if (connection.status !== 'ready') return true;
      if (!asking && now() - settledAt >= freshMs) ask();
      return answering;
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

/** The stores one of whose connections has a PING unanswered past its bound, sorted; answered at once, never waiting for Redis. */
export function storesNotAnswering(): string[] {
  const stores = [...probes.values()].filter(({ probe }) => !probe.answering()).map(({ store }) => store);
  return [...new Set(stores)].sort();
}
