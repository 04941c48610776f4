import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptOf, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../support/sdk-v1-agent-kit.js';
import { inProcess } from './in-process.js';

/*
 * A 1.x SDK agent that answers as many do: its reply's text in an artifact streamed in chunks, then a final
 * status message of its own. `call` shows the user both, streamed or not, as the facade does.
 */
const CHUNKS = ['chunk0 ', 'chunk1 ', 'chunk2 '];
const finalWords = (prompt: string) => `UP echo: ${prompt}`;

const artifactThenStatus: AgentExecutor = {
  async execute(request, bus) {
    const { opening, status, artifact } = turnEvents(request);
    const prompt = promptOf(request.userMessage);
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    CHUNKS.forEach((chunk, i) => bus.publish(artifact('reply', [textPart(chunk)], i > 0, i === CHUNKS.length - 1)));
    // `same`: the status says again what the artifact said, which is not shown twice.
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, prompt === 'same' ? CHUNKS.join('') : finalWords(prompt)));
  },
  cancelTask: async () => undefined,
};

let agent: RunningTestAgent;
beforeAll(async () => {
  agent = await startSdkTestAgent(
    {
      name: 'artifact-then-status',
      description: 'an artifact in chunks, then a final status message',
      skill: { id: 'echo', name: 'Echo', description: 'echo' },
    },
    artifactThenStatus,
  );
});
afterAll(() => agent?.close());

describe('a2a-bridge call, an agent that answers in an artifact and a final status message', { timeout: 30_000 }, () => {
  for (const mode of ['--stream', '--no-stream']) {
    it(`${mode}: the artifact's text, then the status message on a line of its own`, async () => {
      const run = await inProcess(['call', agent.url, 'hi', mode]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('chunk0 chunk1 chunk2 \nUP echo: hi\n');
      expect(run.stderr).toMatch(/^state: completed$/m);
    });

    it(`${mode}: a status message that says the artifact's text again is not shown twice`, async () => {
      const run = await inProcess(['call', agent.url, 'same', mode]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('chunk0 chunk1 chunk2 \n');
    });
  }
});
