/**
 * A stream that leads more than one task (recording.ts): when it ends, what each task folded since its last
 * persist point is written (task-writer.ts `end`), not the first task's alone.
 */
import { describe, expect, it } from 'vitest';
import { recording } from '../../src/core/recording.js';
import { createRedaction } from '../../src/core/redact.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { createTaskWriter } from '../../src/core/task-writer.js';
import { Feed, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { ALICE } from './gateway-harness.js';

const turnOfTheLoop = () => new Promise((resolve) => setImmediate(resolve));

describe('recording: a stream leading two tasks', () => {
  it('writes what each folded since its last write when it ends', async () => {
    const feed = new Feed().push(
      taskFrame('T', 'C'),
      taskFrame('U', 'C'),
      statusFrame('T', 'C', 'TASK_STATE_WORKING', 't1'),
      statusFrame('U', 'C', 'TASK_STATE_WORKING', 'u1'),
    );
    const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 60_000, historyLimit: 100 });
    const port = recording(stubUpstream({ sendStreamingMessage: () => feed.stream() }), {
      registry,
      writer: createTaskWriter(registry),
      redaction: createRedaction(),
      metaOf: (ctx, tenant) => ({ owner: ctx.principal, upstream: 'up', tenant }),
    });
    const stream = port.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    for (let read = 0; read < 4; read++) await stream.next();
    // The state changes' writes are done: what comes next in the same state waits for the stream's end.
    await turnOfTheLoop();
    await turnOfTheLoop();
    feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 't2'), statusFrame('U', 'C', 'TASK_STATE_WORKING', 'u2'));
    feed.end();
    while (!(await stream.next()).done);
    const said = async (taskId: string) => {
      const task = await registry.get(taskId, ALICE.principal);
      return [...(task?.history ?? []), task?.status.message]
        .map((message) => message?.parts[0]?.text)
        .filter((text) => text?.startsWith(taskId.toLowerCase()));
    };
    expect(await said('T')).toEqual(['t1', 't2']);
    expect(await said('U')).toEqual(['u1', 'u2']);
  });
});
