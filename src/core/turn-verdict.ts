/**
 * Whether the turn a send began is the one its caller reads, told by the surface that sent it once it knows: the
 * 0.2.5 facade may drop an attempt the agent refused before it did anything and send the caller's message again
 * (surfaces/v025/turn/gone-task.ts). What the call's decorators keep of such a turn for the caller (push: its inline
 * config and its notifications) waits for the verdict (CallContext.turnVerdict).
 */
export interface TurnVerdict {
  /**
   * `listener` is told the verdict once: true, the turn went on; false, it was dropped. What it returns is awaited
   * before the surface shows the turn. Told at once when the verdict is in already.
   */
  onDecided(listener: (taken: boolean) => Promise<void> | void): void;
}

/**
 * A verdict its surface gives with `decide`, which resolves once every listener is done: undefined when there is
 * nothing to wait for (told already, or no listener: push notifications off), so that a facade attempt that may be
 * sent again pays no async frame for it.
 */
export interface DecidedTurnVerdict extends TurnVerdict {
  decide(taken: boolean): Promise<void> | undefined;
}

export function createTurnVerdict(): DecidedTurnVerdict {
  const listeners: Array<(taken: boolean) => Promise<void> | void> = [];
  let verdict: boolean | undefined;
  return {
    onDecided(listener) {
      if (verdict === undefined) listeners.push(listener);
      else void listener(verdict);
    },
    decide(taken) {
      if (verdict !== undefined) return undefined;
      verdict = taken;
      return listeners.length === 0 ? undefined : toldAll(listeners.splice(0), taken);
    },
  };
}

async function toldAll(listeners: Array<(taken: boolean) => Promise<void> | void>, taken: boolean): Promise<void> {
  await Promise.all(listeners.map(async (listener) => listener(taken)));
}
