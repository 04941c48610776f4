/**
 * A 1.0 body shows an event's files as the inliner the app hands over reads them: a few at a time, and a read
 * that hangs is given up on after INLINE_BOUND_MS, its file sent as its URL, so the task's later notifications
 * do not wait behind it forever.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundedInliner, type ArtifactReader } from '../../src/core/inline-artifacts.js';
import type { Part, StreamResponse } from '../../src/model/index.js';
import { INLINE_BOUND_MS, v1Body } from '../../src/push/v1-body.js';

const filePart = (name: string): Part => ({ url: `iac-code-artifact://a-${name}/${name}`, filename: name });
const taskWith = (names: string[]): StreamResponse => ({
  task: {
    id: 'up-1',
    contextId: 'ctx-1',
    status: { state: 'TASK_STATE_INPUT_REQUIRED' },
    artifacts: names.map((name) => ({ artifactId: `a-${name}`, parts: [filePart(name)] })),
  },
});

/** A reader that answers each file's name as its bytes, except `hangs`, which it never answers; it counts the reads under way. */
function reader(hangs: string[] = []) {
  const counts = { running: 0, most: 0, started: 0 };
  const handles = (part: Part) => part.url?.startsWith('iac-code-artifact://') === true;
  const inline: ArtifactReader['inline'] = async (part) => {
    counts.started += 1;
    counts.running += 1;
    counts.most = Math.max(counts.most, counts.running);
    if (hangs.includes(part.filename ?? '')) return new Promise<Part>(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 10));
    counts.running -= 1;
    return { raw: Buffer.from(part.filename ?? '').toString('base64'), filename: part.filename ?? '' };
  };
  return { counts, reader: { handles, inline } };
}

function deps(files: ArtifactReader) {
  const warnings: string[] = [];
  const logger = { info() {}, error() {}, warn: (_fields: object, message: string) => void warnings.push(message) };
  return { warnings, deps: { logger, inlineV1: (event: StreamResponse, signal: AbortSignal) => boundedInliner(files, signal).event(event) } };
}

const shownFiles = (body: string): string[] =>
  (JSON.parse(body) as { task: { artifacts: Array<{ parts: Part[] }> } }).task.artifacts.map(({ parts: [part] }) =>
    part?.raw !== undefined ? Buffer.from(part.raw, 'base64').toString('utf8') : `url: ${part?.url}`,
  );

afterEach(() => vi.useRealTimers());

describe('v1Body', () => {
  it('without an inliner: the event as recorded', async () => {
    const event = taskWith(['main.tf']);
    expect(await v1Body({ logger: deps(reader().reader).deps.logger }, event)).toBe(JSON.stringify(event));
  });

  it('a body with many files: all shown, read at most 4 at a time', async () => {
    const names = Array.from({ length: 12 }, (_, at) => `f${at}.tf`);
    const { reader: files, counts } = reader();
    expect(shownFiles(await v1Body(deps(files).deps, taskWith(names)))).toEqual(names);
    expect(counts.most).toBe(4);
  });

  it('a read that hangs: given up on after INLINE_BOUND_MS, that file and those not read yet sent as their URL, the rest shown', async () => {
    vi.useFakeTimers();
    const names = ['a.tf', 'hung.tf', 'b.tf', 'c.tf', 'd.tf', 'e.tf', 'f.tf', 'g.tf'];
    const { reader: files, counts } = reader(['hung.tf', 'd.tf', 'e.tf', 'f.tf']);
    const body = v1Body(deps(files).deps, taskWith(names));
    await vi.advanceTimersByTimeAsync(INLINE_BOUND_MS);
    expect(shownFiles(await body)).toEqual([
      'a.tf',
      'url: iac-code-artifact://a-hung.tf/hung.tf',
      'b.tf',
      'c.tf',
      'url: iac-code-artifact://a-d.tf/d.tf',
      'url: iac-code-artifact://a-e.tf/e.tf',
      'url: iac-code-artifact://a-f.tf/f.tf',
      'url: iac-code-artifact://a-g.tf/g.tf',
    ]);
    // Four reads hung and held every turn: the last file was never read.
    expect(counts.started).toBe(7);
  });

  it('an inliner that fails: the event as recorded, and a warning', async () => {
    const event = taskWith(['main.tf']);
    const { deps: given, warnings } = deps(reader().reader);
    const failing = { ...given, inlineV1: async () => Promise.reject(new Error('disk gone')) };
    expect(await v1Body(failing, event)).toBe(JSON.stringify(event));
    expect(warnings).toHaveLength(1);
  });
});
