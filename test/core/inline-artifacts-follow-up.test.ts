/**
 * A follow-up's stream (an answer to iac-code's question, a permission "好的") opens with the task as recorded
 * (core/stream-opening.ts), its earlier turns' files in it. Those were shown before: reading every one of them in
 * before the turn's first event (the facade shows none of an opening Task's files) held back each answer's reply.
 */
import { describe, expect, it } from 'vitest';
import { inlineArtifacts, type ArtifactReader } from '../../src/core/inline-artifacts.js';
import { streamsOpeningWithTask } from '../../src/core/stream-opening.js';
import type { Part, StreamResponse, Task } from '../../src/model/index.js';
import { ctxOf, statusFrame, stubUpstream, userMessage } from '../support/gateway-stubs.js';

const file = (n: number) => ({ artifactId: `f-${n}`, parts: [{ url: `iac-code-artifact://f-${n}/main${n}.tf`, mediaType: 'text/plain' } as Part] });
const recorded: Task = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_INPUT_REQUIRED' },
  history: [userMessage({ text: 'make vpc', taskId: 't-1', contextId: 'c-1' })],
  artifacts: [file(1), file(2)],
};

function countingReader(reads: string[]): ArtifactReader {
  return {
    handles: (part) => typeof part.url === 'string' && part.url.startsWith('iac-code-artifact://'),
    inline: async (part) => {
      reads.push(part.url!);
      return { raw: Buffer.from('resource "x" {}').toString('base64'), mediaType: 'text/plain' };
    },
  };
}

describe("a follow-up's stream with its files read in for its caller", () => {
  it("opens with the recorded task without reading the earlier turns' files; the turn's own file is read in", async () => {
    const reads: string[] = [];
    const agent = stubUpstream({
      async *sendStreamingMessage() {
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_WORKING');
        yield { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: file(3) } };
      },
    });
    const port = inlineArtifacts(streamsOpeningWithTask(agent, { get: async () => recorded }), countingReader(reads), () => true);
    const events: StreamResponse[] = [];
    for await (const event of port.sendStreamingMessage(
      { message: userMessage({ text: '好的', taskId: 't-1', contextId: 'c-1' }) },
      { ...ctxOf('alice'), surface: 'v025' },
    )) {
      events.push(event);
    }
    expect('task' in events[0]! && events[0].task.artifacts?.map((artifact) => artifact.artifactId)).toEqual(['f-1', 'f-2']);
    expect(reads).toEqual(['iac-code-artifact://f-3/main3.tf']);
    const last = events.at(-1)!;
    expect('artifactUpdate' in last && last.artifactUpdate.artifact.parts[0]?.raw).toBeDefined();
  });

  it("reads a new task's opening Task in, as before", async () => {
    const reads: string[] = [];
    const agent = stubUpstream({
      async *sendStreamingMessage() {
        yield { task: { id: 't-2', contextId: 'c-2', status: { state: 'TASK_STATE_SUBMITTED' }, artifacts: [file(4)] } };
      },
    });
    const port = inlineArtifacts(agent, countingReader(reads), () => true);
    for await (const _event of port.sendStreamingMessage({ message: userMessage({ text: 'hi', contextId: 'c-2' }) }, ctxOf('alice'))) {
      // read to the end
    }
    expect(reads).toEqual(['iac-code-artifact://f-4/main4.tf']);
  });
});
