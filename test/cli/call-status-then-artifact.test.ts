import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentMessage, part, promptOf, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../support/sdk-v1-agent-kit.js';
import { createStreamPrinter } from '../../src/cli/render.js';
import type { StreamResponse } from '../../src/model/index.js';
import { inProcess } from './in-process.js';

/*
 * A 1.x SDK agent that says what it is doing in a status message, then answers in an artifact streamed in
 * chunks (as the a2a-js samples do). Streamed, `call` showed "Working on it..." and never the answer: an
 * artifact after status text went to the summary alone, which lists only files. Now the answer shows on a line
 * of its own once the artifact is whole, and still once when the agent's status messages said it already.
 */
const WORKING = 'Working on it...';
const CHUNKS = ['alpha ', 'beta ', 'gamma'];
const ANSWER = CHUNKS.join('');
const FILE = 'https://example.com/data.csv';

const statusThenArtifact: AgentExecutor = {
  async execute(request, bus) {
    const { opening, status, artifact } = turnEvents(request);
    const prompt = promptOf(request.userMessage);
    if (prompt === 'files') {
      const parts = [textPart('Here you go'), part({ $case: 'url', value: FILE }, { filename: 'data.csv', mediaType: 'text/csv' })];
      bus.publish(AgentEvent.message(agentMessage([...parts, part({ $case: 'data', value: { rows: 3 } })], '', request.contextId)));
      return;
    }
    bus.publish(opening());
    if (prompt === 'said') {
      // The answer streamed as status text (one message in chunks), then filed as an artifact with the same words.
      CHUNKS.forEach((chunk) => bus.publish(status(TaskState.TASK_STATE_WORKING, chunk, 'one-message')));
    } else bus.publish(status(TaskState.TASK_STATE_WORKING, WORKING));
    CHUNKS.forEach((chunk, i) => {
      bus.publish(artifact('reply', [textPart(chunk)], i > 0, i === CHUNKS.length - 1));
      // `two`: a second artifact streamed alongside, as the a2a-js samples' agents may.
      if (prompt === 'two') bus.publish(artifact('notes', [textPart(`n${i}`)], i > 0, i === CHUNKS.length - 1));
    });
    // `repeat`: the closing status says the artifact's words again, which are not shown twice.
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, prompt === 'repeat' ? ANSWER : undefined));
  },
  cancelTask: async () => undefined,
};

let agent: RunningTestAgent;
beforeAll(async () => {
  agent = await startSdkTestAgent(
    {
      name: 'status-then-artifact',
      description: 'a status message, then the answer in an artifact',
      skill: { id: 'answer', name: 'Answer', description: 'answers' },
    },
    statusThenArtifact,
  );
});
afterAll(() => agent?.close());

describe('a2a-bridge call, an agent that says what it does, then answers in an artifact', { timeout: 30_000 }, () => {
  it("streamed: the status message, then the artifact's text on a line of its own", async () => {
    const run = await inProcess(['call', agent.url, 'go', '--stream']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${WORKING}\n${ANSWER}\n`);
    expect(run.stderr).toMatch(/^artifact: reply \(reply\)$/m);
  });

  it("--no-stream: the artifact's text (the status message went by in the history)", async () => {
    const run = await inProcess(['call', agent.url, 'go', '--no-stream']);
    expect(run.stdout).toBe(`${ANSWER}\n`);
  });

  it('streamed: a closing status message that says the artifact again is not shown twice', async () => {
    const run = await inProcess(['call', agent.url, 'repeat', '--stream']);
    expect(run.stdout).toBe(`${WORKING}\n${ANSWER}\n`);
  });

  it('streamed: two artifacts in chunks side by side, each whole on a line of its own', async () => {
    const run = await inProcess(['call', agent.url, 'two', '--stream']);
    expect(run.stdout).toBe(`${WORKING}\n${ANSWER}\nn0n1n2\n`);
  });

  it('streamed: an artifact holding what the status messages said already is not shown twice', async () => {
    const run = await inProcess(['call', agent.url, 'said', '--stream']);
    expect(run.stdout).toBe(`${ANSWER}\n`);
  });

  for (const mode of ['--stream', '--no-stream']) {
    it(`${mode}: a Message answer's file and data parts each on a line of their own after its text`, async () => {
      const run = await inProcess(['call', agent.url, 'files', mode]);
      expect(run.stdout).toBe(`Here you go\n[file data.csv (text/csv): ${FILE}]\n[data: {"rows":3}]\n`);
    });
  }
});

describe('the stream printer, an artifact after a status message', () => {
  const ids = { taskId: 't', contextId: 'c' };
  const text = (value: string) => ({ text: value });

  it('shows each chunk as it comes, not at the end of the turn', () => {
    let stdout = '';
    const printer = createStreamPrinter((written) => (stdout += written));
    printer.event({
      statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [text(WORKING)] } } },
    });
    printer.event({ artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [text('alpha ')] } } });
    expect(stdout).toBe(`${WORKING}\nalpha `);
    printer.event({ artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [text('beta')] }, append: true, lastChunk: true } });
    expect(stdout).toBe(`${WORKING}\nalpha beta`);
  });

  const status = (state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED', words?: string): StreamResponse => ({
    statusUpdate: { ...ids, status: { state, ...(words ? { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [text(words)] } } : {}) } },
  });
  const chunk = (words: string, append: boolean, lastChunk: boolean): StreamResponse => ({
    artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [text(words)] }, append, lastChunk },
  });
  const printed = (events: StreamResponse[]): string => {
    let stdout = '';
    const printer = createStreamPrinter((written) => (stdout += written));
    events.forEach((event) => printer.event(event));
    printer.finish();
    return stdout;
  };

  it('an answer whose words occur inside the status text, not at its end as whole words, is shown', () => {
    const rolled = printed([status('TASK_STATE_WORKING', 'Rolling a die (1-6)...'), chunk('6', false, true), status('TASK_STATE_COMPLETED')]);
    expect(rolled).toBe('Rolling a die (1-6)...\n6\n');
    const asked = printed([status('TASK_STATE_WORKING', 'Yesterday?'), chunk('Yes', false, true), status('TASK_STATE_COMPLETED')]);
    expect(asked).toBe('Yesterday?\nYes\n');
  });

  it('an answer whose first chunk the status text holds is shown whole, a status update between its chunks', () => {
    const answer = (said: string) =>
      printed([
        status('TASK_STATE_WORKING', said),
        chunk('The', false, false),
        status('TASK_STATE_WORKING'),
        chunk(' answer is 42.', true, true),
        status('TASK_STATE_COMPLETED'),
      ]);
    expect(answer('The agent is thinking...')).toBe('The agent is thinking...\nThe answer is 42.\n');
    expect(answer('Here is the answer: The')).toBe('Here is the answer: The\nThe answer is 42.\n');
  });
});
