/** A 0.2.5 body is the facade's rendering when it gives one; a renderer that throws or hangs costs only that shape, never the push. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadMappingProfile } from '../../src/mappings/index.js';
import type { Task } from '../../src/model/index.js';
import { RENDER_BOUND_MS, v025Body, type V025TaskRenderer } from '../../src/push/v025-body.js';

const task: Task = {
  id: 'up-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
};

function deps(render?: V025TaskRenderer) {
  const warnings: Array<{ fields: object; message: string }> = [];
  const logger = { info() {}, error() {}, warn: (fields: object, message: string) => void warnings.push({ fields, message }) };
  return { warnings, deps: { profile: loadMappingProfile('a2a-0.2.5'), logger, ...(render ? { renderV025: () => render } : {}) } };
}

afterEach(() => vi.useRealTimers());

describe('v025Body', () => {
  it("is the renderer's Task, told whom it is for", async () => {
    const seen: unknown[] = [];
    const { deps: given } = deps(async (recorded, body) => {
      seen.push([recorded.id, body]);
      return { kind: 'task', id: body.clientTaskId, rendered: true };
    });
    const body = JSON.parse(await v025Body(given, task, { owner: 'alice', clientTaskId: 'mine', turnEnded: true }));
    expect(body).toEqual({ kind: 'task', id: 'mine', rendered: true });
    expect(seen).toEqual([['up-1', { owner: 'alice', clientTaskId: 'mine', turnEnded: true }]]);
  });

  it('without a renderer: the recorded task translated, under the id its caller chose', async () => {
    const { deps: given } = deps();
    expect(JSON.parse(await v025Body(given, task, { owner: 'alice', clientTaskId: 'mine', turnEnded: true }))).toMatchObject({
      kind: 'task',
      id: 'mine',
      status: { state: 'completed' },
    });
  });

  it('a renderer that throws: the recorded task translated, and a warning', async () => {
    const { deps: given, warnings } = deps(async () => {
      throw new Error('replay broke');
    });
    expect(JSON.parse(await v025Body(given, task, { owner: 'alice', turnEnded: true }))).toMatchObject({
      kind: 'task',
      id: 'up-1',
      status: { state: 'completed' },
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ taskId: 'up-1' });
  });

  it('a renderer that never answers: given up on after RENDER_BOUND_MS, its signal aborted, the recorded task sent', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const { deps: given, warnings } = deps((_task, _body, given) => {
      signal = given;
      return new Promise(() => undefined);
    });
    const body = v025Body(given, task, { owner: 'alice', turnEnded: true });
    await vi.advanceTimersByTimeAsync(RENDER_BOUND_MS);
    expect(JSON.parse(await body)).toMatchObject({ kind: 'task', id: 'up-1' });
    expect(signal?.aborted).toBe(true);
    expect(warnings).toHaveLength(1);
  });
});
