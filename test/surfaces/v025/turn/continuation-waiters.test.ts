/**
 * Every message to a conversation whose turn runs here waits in previousEnded, up to LET_GO_MS; one whose turn
 * the lanes hold (another replica runs it), up to LET_GO_ELSEWHERE_MS. A wait that ended at its bound keeps
 * nothing until the running turn ends (minutes for iac-code): a promise raced against the turn's end kept a
 * reaction per message on it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { createContextLanes } from '../../../../src/core/context-lanes.js';
import { createContinuations } from '../../../../src/surfaces/v025/turn/continuation.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap 100,000 waits keep once they are over, per wait. */
async function retainedPerWait(wait: () => Promise<unknown>): Promise<number> {
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let batch = 0; batch < 5; batch++) await Promise.all(Array.from({ length: 20_000 }, wait));
  gc();
  return (process.memoryUsage().heapUsed - before) / 100_000;
}

it('messages refused on a busy conversation do not keep heap until its turn ends', async () => {
  const registry = { latestInContext: async () => undefined, get: async () => undefined } as never;
  const continuations = createContinuations(registry);
  const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], contextId: 'ctx' };
  const running = await continuations.begin({ message } as never, 'alice');
  const retainedPerMessage = await retainedPerWait(() => continuations.previousEnded('alice', 'ctx'));
  running.end();
  // With the race: ~313 bytes per message, 31 MB per 100,000 messages while one turn runs.
  expect(retainedPerMessage).toBeLessThan(50);
});

it('messages waiting for a turn the lanes hold (no turn of its own here) do not keep heap until it ends', async () => {
  const registry = { latestInContext: async () => undefined, get: async () => undefined } as never;
  const lanes = createContextLanes();
  const continuations = createContinuations(registry, (contextId, _principal, withinMs) => lanes.letGo(contextId, withinMs));
  const running = await lanes.tryAcquire('ctx');
  const retainedPerMessage = await retainedPerWait(() => continuations.previousEnded('alice', 'ctx'));
  await running!.release();
  expect(retainedPerMessage).toBeLessThan(50);
});
