import { UpstreamConfig } from '../../src/config/schema.js';
import type { CallContext } from '../../src/core/agent-port.js';
import type { StreamResponse } from '../../src/model/index.js';
import { createV025Upstream, type V025Upstream } from '../../src/upstream/v025/client.js';
import type { V025Dialect } from '../../src/upstream/v025/card.js';
import { startFakeV025, type FakeV025, type FakeV025Options } from '../support/fake-v025.js';

export const open: Array<{ close(): Promise<void> }> = [];

export async function closeAll(): Promise<void> {
  for (const item of open.splice(0).reverse()) await item.close();
}

export async function setup(
  fakeOptions: FakeV025Options = {},
  config: Record<string, unknown> = {},
  dialect: V025Dialect = '0.2.5',
): Promise<{ fake: FakeV025; upstream: V025Upstream }> {
  const fake = await startFakeV025(fakeOptions);
  open.push(fake);
  const upstream = createV025Upstream({ baseUrl: fake.url, config: UpstreamConfig.parse(config), dialect });
  open.push(upstream);
  return { fake, upstream };
}

export const ctx = (extra: Partial<CallContext> = {}): CallContext => ({ principal: '', signal: new AbortController().signal, ...extra });

/**
 * The agent's card, fetched again after a failure (a card that failed is fetched anew on the next try): a test's
 * small bounds are for the calls after it, and on a loaded host one fetch alone may outlast them.
 */
export async function cardFetched(upstream: { fetchCard(): Promise<unknown> }, tries = 5): Promise<void> {
  for (let tried = 1; ; tried++) {
    try {
      await upstream.fetchCard();
      return;
    } catch (error) {
      if (tried >= tries) throw error;
    }
  }
}

/** Kind and state of each event. */
export function outline(event: StreamResponse): string {
  if ('task' in event) return `task:${event.task.status.state}`;
  if ('message' in event) return 'message';
  if ('artifactUpdate' in event) return `artifact:${event.artifactUpdate.artifact.parts[0]?.text ?? ''}`;
  return `status:${event.statusUpdate.status.state}`;
}

/** 0.2.5 objects as a fake agent writes them. */
export const v025 = {
  task: (state: string, extra: Record<string, unknown> = {}) => ({ kind: 'task', id: 't-1', contextId: 'c-1', status: { state }, ...extra }),
  status: (state: string, final: boolean, extra: Record<string, unknown> = {}) => ({
    kind: 'status-update',
    taskId: 't-1',
    contextId: 'c-1',
    status: { state, ...extra },
    final,
  }),
  artifact: (text: string, append = false) => ({
    kind: 'artifact-update',
    taskId: 't-1',
    contextId: 'c-1',
    artifact: { artifactId: 'a-1', parts: [{ kind: 'text', text }] },
    append,
  }),
  message: (text: string) => ({ kind: 'message', role: 'agent', messageId: 'm-a', parts: [{ kind: 'text', text }] }),
};
