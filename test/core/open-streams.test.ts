import { describe, expect, it } from 'vitest';
import { createOpenStreams } from '../../src/core/open-streams.js';
import type { StreamResponse } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { statusFrame, taskFrame } from '../support/gateway-stubs.js';

async function* frames(...events: StreamResponse[]): AsyncGenerator<StreamResponse> {
  yield* events;
}

describe('open streams: a task followed by two streams', () => {
  it('leads with the first; each stream meets each of its tasks once, before its event is led, led or not', async () => {
    const streams = createOpenStreams();
    const seen: string[] = [];
    const follow = (name: string, source: AsyncIterable<StreamResponse>) =>
      streams.follow(
        source,
        (event, taskId) => {
          seen.push(`${name} leads ${taskId}:${'task' in event ? 'task' : 'status'}`);
        },
        () => undefined,
        (_event, taskId, leads) => seen.push(`${name} meets ${taskId}${leads ? ' leading' : ''}`),
      );
    // The prompting stream stays open while the answering stream runs (iac-code's permission prompts).
    const prompting = follow('A', frames(taskFrame('t', 'c'), statusFrame('t', 'c', 'TASK_STATE_WORKING')))[Symbol.asyncIterator]();
    await prompting.next();
    await collect(follow('B', frames(statusFrame('t', 'c', 'TASK_STATE_WORKING'), statusFrame('t', 'c', 'TASK_STATE_WORKING'), taskFrame('u', 'c'))));
    await prompting.next();
    expect(seen).toEqual(['A meets t leading', 'A leads t:task', 'B meets t', 'B meets u leading', 'B leads u:task', 'A leads t:status']);
  });
});

describe('open streams: a stream ends', () => {
  it('with the tasks it led, and those no stream follows any more once it left them', async () => {
    const streams = createOpenStreams();
    const ends: string[] = [];
    const follow = (name: string, source: AsyncIterable<StreamResponse>) =>
      streams.follow(
        source,
        () => undefined,
        (led, unfollowed) => void ends.push(`${name} led [${led.join()}] unfollowed [${unfollowed.join()}]`),
      );
    const first = follow('A', frames(taskFrame('t', 'c'), statusFrame('t', 'c', 'TASK_STATE_WORKING')))[Symbol.asyncIterator]();
    await first.next();
    await collect(follow('B', frames(statusFrame('t', 'c', 'TASK_STATE_WORKING'), taskFrame('u', 'c'))));
    expect(streams.has('t')).toBe(true);
    await collect(follow('C', frames(statusFrame('u', 'c', 'TASK_STATE_WORKING'))));
    await collect({ [Symbol.asyncIterator]: () => first });
    expect(ends).toEqual(['B led [u] unfollowed [u]', 'C led [u] unfollowed [u]', 'A led [t] unfollowed [t]']);
    expect(streams.has('t') || streams.has('u')).toBe(false);
  });
});

describe('open streams: each task a stream meets vetted first', () => {
  it('vets each task once, before it is met or led, and its event waits for the vetting', async () => {
    const streams = createOpenStreams();
    const seen: string[] = [];
    const stream = streams.follow(
      frames(taskFrame('t', 'c'), statusFrame('t', 'c', 'TASK_STATE_WORKING'), taskFrame('u', 'c')),
      (_event, taskId) => void seen.push(`leads ${taskId}`),
      () => undefined,
      (_event, taskId) => seen.push(`meets ${taskId}`),
      (taskId) => {
        seen.push(`vets ${taskId}`);
        return Promise.resolve().then(() => void seen.push(`vetted ${taskId}`));
      },
    );
    await collect(stream);
    expect(seen).toEqual(['vets t', 'vetted t', 'meets t', 'leads t', 'leads t', 'vets u', 'vetted u', 'meets u', 'leads u']);
  });

  it('a task that fails its vetting fails the stream, neither met nor followed', async () => {
    const streams = createOpenStreams();
    const seen: string[] = [];
    const ends: (readonly string[])[] = [];
    const stream = streams.follow(
      frames(taskFrame('t', 'c')),
      (_event, taskId) => void seen.push(`leads ${taskId}`),
      (led, unfollowed) => void ends.push(led, unfollowed),
      (_event, taskId) => seen.push(`meets ${taskId}`),
      () => Promise.reject(new Error('foreign')),
    );
    await expect(collect(stream)).rejects.toThrow('foreign');
    expect(seen).toEqual([]);
    expect(ends).toEqual([[], []]);
    expect(streams.has('t')).toBe(false);
  });

  it('a task vetted after the reader returned the stream is not followed', async () => {
    const streams = createOpenStreams();
    const seen: string[] = [];
    let vetted!: () => void;
    const stream = streams
      .follow(
        frames(taskFrame('t', 'c')),
        (_event, taskId) => void seen.push(`leads ${taskId}`),
        (led, unfollowed) => void seen.push(`ends led [${led.join()}] unfollowed [${unfollowed.join()}]`),
        (_event, taskId) => seen.push(`meets ${taskId}`),
        () => new Promise<void>((resolve) => (vetted = resolve)),
      )
      [Symbol.asyncIterator]();
    const read = stream.next();
    await new Promise((resolve) => setImmediate(resolve));
    await stream.return?.();
    vetted();
    await read;
    expect(seen).toEqual(['ends led [] unfollowed []']);
    expect(streams.has('t')).toBe(false);
  });
});
