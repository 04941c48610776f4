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
