/**
 * ListTasks with inlined artifacts (inline-artifacts.ts): a page of up to 100 tasks, each with files of up to
 * `bailian.inline-max-bytes`, is read a few files at a time, not all at once, and not at all once the caller left
 * (what is left unread keeps its URL, as a file the reader refuses does).
 */
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { AgentPort, CallContext } from '../../src/core/agent-port.js';
import { inlineArtifacts, type ArtifactReader } from '../../src/core/inline-artifacts.js';
import type { ListTasksResponse, Part, Task } from '../../src/model/index.js';

const file = (n: number): Part => ({ url: `iac-code-artifact://a-${n}/main.tf`, filename: 'main.tf' });
const taskWith = (n: number): Task => ({
  id: `t-${n}`,
  contextId: 'c-1',
  status: { state: 'TASK_STATE_INPUT_REQUIRED' },
  artifacts: [{ artifactId: `a-${n}`, parts: [file(n), { text: 'not a file' }] }],
});
const PAGE: ListTasksResponse = { tasks: Array.from({ length: 100 }, (_, n) => taskWith(n)), nextPageToken: '', pageSize: 100, totalSize: 100 };
const listingPort = { listTasks: async () => PAGE } as unknown as AgentPort;

/** A reader that notes how many reads run at once, each taking a few turns of the event loop. */
function countingReader() {
  const seen = { reads: 0, running: 0, most: 0 };
  const reader: ArtifactReader = {
    handles: (part) => part.url?.startsWith('iac-code-artifact://') ?? false,
    async inline(part) {
      seen.reads++;
      seen.running++;
      seen.most = Math.max(seen.most, seen.running);
      for (let turn = 0; turn < 3; turn++) await tick();
      seen.running--;
      return { raw: Buffer.from(part.url ?? '').toString('base64'), filename: part.filename };
    },
  };
  return { reader, seen };
}

const listed = (signal: AbortSignal) => {
  const ctx: CallContext = { principal: 'p', signal };
  return { request: { includeArtifacts: true, pageSize: 100 }, ctx };
};

describe('ListTasks with inlined artifacts', () => {
  it('reads every file of a page of 100 tasks, a few at a time', async () => {
    const { reader, seen } = countingReader();
    const { request, ctx } = listed(new AbortController().signal);
    const page = await inlineArtifacts(listingPort, reader, () => true).listTasks(request, ctx);
    expect(page.tasks.map((task) => task.artifacts?.[0]?.parts[0]?.raw)).toEqual(
      PAGE.tasks.map((task) => Buffer.from(task.artifacts![0]!.parts[0]!.url!).toString('base64')),
    );
    expect(page.tasks[0]?.artifacts?.[0]?.parts[1]).toEqual({ text: 'not a file' });
    expect(seen.reads).toBe(100);
    expect(seen.most).toBeGreaterThan(1);
    expect(seen.most).toBeLessThanOrEqual(4);
  });

  it('reads nothing more once the caller has left: the files left keep their URL', async () => {
    const { reader, seen } = countingReader();
    const caller = new AbortController();
    const { request, ctx } = listed(caller.signal);
    const answer = inlineArtifacts(listingPort, reader, () => true).listTasks(request, ctx);
    await tick();
    caller.abort();
    const page = await answer;
    expect(seen.reads).toBeLessThanOrEqual(4);
    expect(page.tasks.at(-1)?.artifacts?.[0]?.parts[0]).toEqual(file(99));
  });

  it('leaves the page as listed for a call it does not apply to', async () => {
    const { reader, seen } = countingReader();
    const { request, ctx } = listed(new AbortController().signal);
    expect(await inlineArtifacts(listingPort, reader, () => false).listTasks(request, ctx)).toBe(PAGE);
    expect(seen.reads).toBe(0);
  });
});
