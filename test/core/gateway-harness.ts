/**
 * A gateway (src/core/gateway.ts) over a stub upstream and a memory registry unless one is given, for
 * the gateway*.test.ts files of the core: two callers, and a stream opened up to its first event.
 */
import { createGateway } from '../../src/core/gateway.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { IAC_CODE_SECRET_KEYS } from '../../src/upstream/iac-code/secrets.js';
import { ctxOf, type StubUpstream, type userMessage } from '../support/gateway-stubs.js';

export const ALICE = ctxOf('basic:alice');
export const BOB = ctxOf('basic:bob');

/** The gateway under test over `upstream`, with the registry it records into. */
export function setup(upstream: StubUpstream, options: { registry?: TaskRegistry } = {}) {
  const registry = options.registry ?? createMemoryTaskRegistry({ maxTasks: 1000, idleTtlMs: 60_000, historyLimit: 100 });
  const gateway = createGateway(upstream, { registry, upstreamName: 'up', secretKeys: IAC_CODE_SECRET_KEYS });
  return { registry, gateway };
}

/** A stream whose upstream is `feed`, with its first event already pulled (admission done). */
export async function openStream(gateway: ReturnType<typeof setup>['gateway'], message: ReturnType<typeof userMessage>, ctx = ALICE) {
  const iterator = gateway.sendStreamingMessage({ message }, ctx)[Symbol.asyncIterator]();
  const first = await iterator.next();
  return { iterator, first };
}
