/**
 * Gateway.turnLetGo: the 0.2.5 facade's message waits for the caller's turn on its context to be let go (on
 * whichever replica runs it) before it reads the note of a turn its caller just left. Lanes are per context,
 * whoever's: on another caller's context the wait must not happen (admission refuses that message as "not
 * available" whatever runs there, and a wait would tell its caller that a turn does), nor a lane be read.
 */
import { describe, expect, it, vi } from 'vitest';
import { createContextLanes } from '../../src/core/context-lanes.js';
import { createGateway } from '../../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { IAC_CODE_SECRET_KEYS } from '../../src/upstream/iac-code/secrets.js';
import { Feed, finishedTask, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { ALICE, BOB, openStream } from './gateway-harness.js';

/** A gateway whose lanes' letGo is watched, over an upstream whose stream is `feed`. */
function setup(feed: Feed, registry: TaskRegistry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 })) {
  const lanes = createContextLanes();
  const letGo = vi.spyOn(lanes, 'letGo');
  const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream(), sendMessage: async () => ({ task: finishedTask('T2', 'C') }) });
  const gateway = createGateway(upstream, { registry, upstreamName: 'up', secretKeys: IAC_CODE_SECRET_KEYS, lanes });
  return { gateway, letGo };
}

/** How long `wait` took, in ms. */
async function took(wait: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await wait();
  return Date.now() - started;
}

describe('gateway: a turn let go', () => {
  it("waits for the caller's own running turn, never on another caller's context, whose lane it does not read", async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const { gateway, letGo } = setup(feed);
    const { iterator } = await openStream(gateway, userMessage({ contextId: 'C' }));
    // The context is Alice's once her turn's first event is recorded.
    await gateway.settled('T');

    // Bounds far apart, so a slow host cannot blur them: had Bob waited, it would be for the whole 10 s.
    expect(await took(() => gateway.turnLetGo('C', BOB.principal, 10_000))).toBeLessThan(5_000);
    expect(letGo).not.toHaveBeenCalled();
    expect(await took(() => gateway.turnLetGo('C', ALICE.principal, 300))).toBeGreaterThanOrEqual(250);
    expect(letGo).toHaveBeenCalledTimes(1);

    // Let go while she waits: the wait ends with the turn, not at its bound.
    const waiting = took(() => gateway.turnLetGo('C', ALICE.principal, 5_000));
    feed.push(statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    while (!(await iterator.next()).done);
    expect(await waiting).toBeLessThan(2_500);
  });

  it('ends at its bound when the registry does not answer (a frozen store), not at the store command time-out', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
    const frozen: TaskRegistry = Object.assign(Object.create(registry) as TaskRegistry, { contextScope: () => new Promise<never>(() => undefined) });
    const { gateway, letGo } = setup(new Feed(), frozen);
    // The frozen store would hold it forever: 150 ms against a give-up of 5 s.
    expect(await took(() => gateway.turnLetGo('C', ALICE.principal, 150))).toBeLessThan(5_000);
    expect(letGo).not.toHaveBeenCalled();
  });
});
