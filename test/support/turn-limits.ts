/**
 * The turn-cap scenarios (limits.*): a gateway in front of the held-turns agent with one token per
 * client name, so each test holds turns of clients of its own and no test inherits another's slots.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from './held-turns-agent.js';

/** The cap every client has, unless named otherwise below. */
export const CAP = 2;
/** A client whose own cap is 1, and one whose own cap is off (0). */
export const SOLO = 'solo';
export const UNCAPPED = 'uncapped';
/** A name two keys share, as during a rotation: the old key's token is tokenOf(ROTATING), the new one's NEXT_KEY. */
export const ROTATING = 'rotating';
export const NEXT_KEY = 'rotating-next-token-0123456789';
/** A credential without a name: a client of its own, counted by its principal. */
export const UNNAMED_TOKEN = 'unnamed-token-0123456789';

/** Client names for the tests that need one each: `client-1` … `client-24`. */
export const clientName = (n: number): string => `client-${n}`;

/** The clients each test may use for itself. */
export const NAMES = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'zeta',
  'theta',
  SOLO,
  UNCAPPED,
  ROTATING,
  ...Array.from({ length: 24 }, (_, i) => clientName(i + 1)),
];

export const tokenOf = (name: string): string => `${name}-token-0123456789`;

/** The gateway config: every name's token, the rotated key and the unnamed one, CAP for all, SOLO 1, UNCAPPED none. */
export function cappedGatewayConfig(agentUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    upstream: { url: agentUrl },
    auth: { tokens: [...NAMES.map((name) => ({ name, token: tokenOf(name) })), { name: ROTATING, token: NEXT_KEY }, UNNAMED_TOKEN] },
    limits: { 'turns-in-flight-per-client': CAP, 'turns-in-flight-by-name': { [SOLO]: 1, [UNCAPPED]: 0 } },
    ...extra,
  };
}

/**
 * The held-turns agent and a capped gateway in front of it for one file's tests (started before them,
 * closed after): read `agent` and `gateway` inside the tests. `extra` is laid over the gateway's config.
 */
export function heldTurnsBehindCappedGateway(extra: Record<string, unknown> = {}): { agent: HeldTurnsAgent; gateway: TestGateway } {
  const running = {} as { agent: HeldTurnsAgent; gateway: TestGateway };
  beforeAll(async () => {
    running.agent = await startHeldTurnsAgent();
    running.gateway = await startTestGateway(cappedGatewayConfig(running.agent.url, extra));
  });
  afterAll(async () => {
    await running.gateway?.close();
    await running.agent?.close();
  });
  return running;
}

/** The message every refused turn carries, for a cap of `cap`. */
export const refusalText = (cap: number): string =>
  `The agent is busy with too many requests from this client (at most ${cap} at once). Please try again in a moment.`;

/**
 * What `attempt` gives once the gateway admits it: attempts it refuses (`refused(error)`) are made again
 * until one goes through, for at most 3 s. A slot that is never given back fails the test here.
 */
export async function admittedWithin<T>(attempt: () => Promise<T>, refused: (error: unknown) => boolean): Promise<T> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!refused(error) || Date.now() > deadline) throw error;
      await sleep(20);
    }
  }
}
