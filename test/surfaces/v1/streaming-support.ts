/**
 * What the real-socket tests (streaming*.test.ts, unary-abort.test.ts) share: a stream source they
 * steer by hand, a reader of SSE blocks, and the app served on a free port with a pooled undici client.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll } from 'vitest';
import type { CallContext } from '../../../src/core/agent-port.js';
import type { A2AError, StreamResponse } from '../../../src/model/index.js';
import { buildApp, statusUpdate, task } from '../support.js';

/** A promise the test resolves by hand. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Resolves when ctx.signal aborts, rejecting so the awaiting generator unwinds like a real upstream call would. */
export const abortedBy = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** A stream source the test steers: it yields the first event, waits for `release`, then yields the rest. */
export function controlledStream(rest: StreamResponse[] = [statusUpdate('TASK_STATE_INPUT_REQUIRED', 'second')], fail?: A2AError) {
  const release = gate();
  const finished = gate();
  const state = { ctx: undefined as CallContext | undefined, released: false, finallyRan: false };
  async function* source(ctx: CallContext): AsyncGenerator<StreamResponse> {
    state.ctx = ctx;
    try {
      yield { task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) };
      await Promise.race([release.opened, abortedBy(ctx.signal)]);
      state.released = true;
      if (fail) throw fail;
      for (const event of rest) yield event;
    } finally {
      state.finallyRan = true;
      finished.open();
    }
  }
  return { source, release: release.open, finished: finished.opened, state };
}

/** Reads an SSE body block by block (blocks end with a blank line). */
export class SseReader {
  private buffer = '';
  private readonly chunks: AsyncIterator<Buffer>;
  constructor(body: AsyncIterable<Buffer>) {
    this.chunks = body[Symbol.asyncIterator]();
  }
  async next(): Promise<string | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return block;
      }
      const { done, value } = await this.chunks.next();
      if (done) return undefined;
      this.buffer += value.toString('utf8');
    }
  }
  async nextData(): Promise<string | undefined> {
    for (;;) {
      const block = await this.next();
      if (block === undefined || !block.startsWith(':')) return block;
    }
  }
}

/** An undici client for this file's requests, closed after its tests. */
export function pooledClient(): Agent {
  const dispatcher = new Agent({ connections: 8 });
  afterAll(() => dispatcher.close());
  return dispatcher;
}

export async function listen(app: ReturnType<typeof buildApp>['app']) {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
