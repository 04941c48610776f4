import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../src/model/index.js';
import { startStream } from '../../../src/surfaces/shared/stream-start.js';
import { ENDED_EARLY, openV1Stream, requireTurnEnd } from '../../../src/surfaces/shared/stream-open.js';
import { collect } from '../../support/collect.js';
import { unhandledRejectionsDuring } from '../../support/unhandled-rejections.js';

const working: StreamResponse = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } };
const done: StreamResponse = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } };
const paused: StreamResponse = { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } };
const reply: StreamResponse = { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } };

async function* events(...items: StreamResponse[]): AsyncGenerator<StreamResponse> {
  for (const item of items) yield item;
}

describe('requireTurnEnd', () => {
  it.each([
    ['a terminal state', [working, done]],
    ['an interrupted state', [paused]],
    ['a direct Message', [reply]],
  ])('lets a stream that ends with %s end cleanly', async (_name, items) => {
    expect(await collect(requireTurnEnd(events(...items)))).toEqual(items);
  });

  it.each([
    ['nothing', []],
    ['WORKING', [working]],
    ['a state that went back to WORKING', [paused, working]],
  ])('fails with -32006 after %s', async (_name, items) => {
    const seen: StreamResponse[] = [];
    const failure = await (async () => {
      for await (const item of requireTurnEnd(events(...items))) seen.push(item);
    })().catch((error: unknown) => error);
    expect(seen).toEqual(items);
    expect(failure).toMatchObject({ code: -32006, message: ENDED_EARLY });
  });

  it('ends at a terminal state or a direct Message: what an agent sends after it is not relayed, and its stream is closed', async () => {
    for (const [before, last] of [
      [working, done],
      [undefined, reply],
    ] as const) {
      let closed = false;
      async function* zombie(): AsyncGenerator<StreamResponse> {
        try {
          if (before) yield before;
          yield last;
          yield working;
          yield { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'late', parts: [{ text: 'late' }] } } };
        } finally {
          closed = true;
        }
      }
      expect(await collect(requireTurnEnd(zombie()))).toEqual(before ? [before, last] : [last]);
      expect(closed).toBe(true);
    }
  });

  it("relays a Message inside a task's stream and goes on to the task's end (nothing the agent said is lost)", async () => {
    expect(await collect(requireTurnEnd(events(working, reply, working, done)))).toEqual([working, reply, working, done]);
    // A stream that ends at it has ended its turn; one that went on working after it has not.
    expect(await collect(requireTurnEnd(events(working, reply)))).toEqual([working, reply]);
    const failure = await collect(requireTurnEnd(events(working, reply, working))).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: -32006, message: ENDED_EARLY });
  });
});

describe('startStream', () => {
  const never = new Promise<never>(() => undefined);

  it('returns with the first event when it comes first', async () => {
    const started = await startStream(() => events(working, done), { firstEventTimeoutMs: 1_000, abort: () => undefined });
    expect(started).toMatchObject({ began: 'event', first: working });
    expect(await collect(started.rest)).toEqual([working, done]);
  });

  it('returns as soon as the upstream accepts, before any event', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started = await startStream(
      (onAccepted) =>
        (async function* () {
          onAccepted();
          await gate;
          yield done;
        })(),
      { firstEventTimeoutMs: 1_000, abort: () => undefined },
    );
    expect(started.began).toBe('accepted');
    release();
    expect(await collect(started.rest)).toEqual([done]);
  });

  it('throws the error of a stream that fails before either', async () => {
    // eslint-disable-next-line require-yield
    const failing = (async function* (): AsyncGenerator<StreamResponse> {
      throw new Error('refused');
    })();
    await expect(startStream(() => failing, { firstEventTimeoutMs: 1_000, abort: () => undefined })).rejects.toThrow('refused');
  });

  it('times out before acceptance with -32603 and aborts the call', async () => {
    let aborted = 0;
    const quiet = { [Symbol.asyncIterator]: () => ({ next: () => never }) };
    await expect(startStream(() => quiet, { firstEventTimeoutMs: 50, abort: () => aborted++ })).rejects.toMatchObject({ code: -32603 });
    expect(aborted).toBe(1);
  });

  it('times out after acceptance: rest fails with -32603, then the call is aborted', async () => {
    let aborted = 0;
    const started = await startStream(
      (onAccepted) => {
        onAccepted();
        return { [Symbol.asyncIterator]: () => ({ next: () => never }) };
      },
      { firstEventTimeoutMs: 50, abort: () => aborted++ },
    );
    expect(started.began).toBe('accepted');
    await expect(collect(started.rest)).rejects.toMatchObject({ code: -32603 });
    expect(aborted).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(aborted).toBe(1);
  });

  it('with a grace, an event right after the acceptance still comes first; an end right after it opens the stream', async () => {
    const acceptThen = (items: StreamResponse[]) => (onAccepted: () => void) =>
      (async function* () {
        onAccepted();
        await new Promise((resolve) => setTimeout(resolve, 5));
        yield* items;
      })();
    const options = { firstEventTimeoutMs: 1_000, abort: () => undefined, acceptGraceMs: 200 };
    expect(await startStream(acceptThen([done]), options)).toMatchObject({ began: 'event', first: done });
    const ended = await startStream(acceptThen([]), options);
    expect(ended.began).toBe('accepted');
    expect(await collect(ended.rest)).toEqual([]);
    const quiet = await startStream(
      (onAccepted) => {
        onAccepted();
        return { [Symbol.asyncIterator]: () => ({ next: () => never }) };
      },
      { ...options, acceptGraceMs: 20 },
    );
    expect(quiet.began).toBe('accepted');
  });

  it('with a grace, a failure right after the acceptance is thrown (a plain error answer) and the call aborted', async () => {
    // a2a-js 0.2.5 servers refuse a stream (an unknown task) by opening it with the error as its first event.
    let aborted = 0;
    const refusing = (onAccepted: () => void) =>
      // eslint-disable-next-line require-yield
      (async function* (): AsyncGenerator<StreamResponse> {
        onAccepted();
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error('Task not found');
      })();
    const options = { firstEventTimeoutMs: 1_000, abort: () => aborted++, acceptGraceMs: 200 };
    await expect(startStream(refusing, options)).rejects.toThrow('Task not found');
    expect(aborted).toBe(1);
    // Past the grace, the stream is open and the failure is its own.
    const late = await startStream(refusing, { ...options, acceptGraceMs: 1 });
    expect(late.began).toBe('accepted');
    await expect(collect(late.rest)).rejects.toThrow('Task not found');
  });

  it('a client leaving a quiet stream clears its first-event timer', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const before = timers();
    const started = await startStream(
      (onAccepted) => {
        onAccepted();
        return { [Symbol.asyncIterator]: () => ({ next: () => never, return: async () => ({ done: true as const, value: undefined }) }) };
      },
      { firstEventTimeoutMs: 60_000, abort: () => undefined },
    );
    expect(timers()).toBe(before + 1);
    await started.rest[Symbol.asyncIterator]().return?.();
    expect(timers()).toBe(before);
  });

  it('a stream accepted and never read leaves no unhandled rejection once its first-event bound passes', async () => {
    // A caller that never comes back for the rest of its stream must not take the gateway down with it.
    const unhandled = await unhandledRejectionsDuring(async () => {
      const started = await startStream(
        (onAccepted) => {
          onAccepted();
          return { [Symbol.asyncIterator]: () => ({ next: () => never }) };
        },
        { firstEventTimeoutMs: 20, abort: () => undefined },
      );
      expect(started.began).toBe('accepted');
    }, 80);
    expect(unhandled).toEqual([]);
  });

  it('a source that throws at its first read leaves no first-event timer to reject unhandled', async () => {
    const unhandled = await unhandledRejectionsDuring(async () => {
      const throwing = {
        [Symbol.asyncIterator]: () => ({
          next: (): Promise<IteratorResult<StreamResponse>> => {
            throw new Error('refused at once');
          },
        }),
      };
      await expect(startStream(() => throwing, { firstEventTimeoutMs: 20, abort: () => undefined })).rejects.toThrow('refused at once');
    }, 80);
    expect(unhandled).toEqual([]);
  });

  it('0 waits without a bound', async () => {
    const started = await startStream(() => events(done), { firstEventTimeoutMs: 0, abort: () => undefined });
    expect(started.began).toBe('event');
  });
});

describe('openV1Stream', () => {
  it('a source that ends without any event is -32006 before anything is committed', async () => {
    const ctx = { principal: 'p', signal: new AbortController().signal };
    await expect(openV1Stream(() => events(), { ctx, abort: () => undefined }, 1_000)).rejects.toMatchObject({ code: -32006 });
  });
});
