/**
 * The `historyLength` an A2A 0.2.5 or 0.3 agent is asked for, to answer a 1.0 caller's (unset: all, 0: none,
 * n: the last n). a2a-js 0.2.5 and 0.3 (JSON-RPC and HTTP+JSON alike) send no history for an unset length and
 * all of it for 0 (`slice(-0)`), so the gateway asks for all or for n and cuts the answer itself
 * (`withHistoryLength`).
 */

/** More messages than any conversation holds: "all of them", as 0.2.5 and 0.3 agents read a number. */
export const ALL_HISTORY = 1_000_000;

export const historyToAsk = (historyLength: number | undefined): number | undefined =>
  historyLength === undefined ? ALL_HISTORY : historyLength <= 0 ? undefined : historyLength;
