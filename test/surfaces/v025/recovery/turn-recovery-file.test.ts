/**
 * A file an agent writes in appended chunks, whose turn's stream breaks mid-file (turn-recovery.ts): the
 * resubscription's snapshot holds the file with every chunk appended to it (the a2a-js 1.x and a2a-python
 * stores), and chunks the agent sent as the subscription listened come live too (turn-echo.ts). What a
 * Bailian user reads is the unbroken turn's text: each chunk once, in order.
 */
import { describe, expect, it } from 'vitest';
import type { Artifact, Message, Part, StreamResponse, Task } from '../../../../src/model/index.js';
import { recoverableTurn } from '../../../../src/surfaces/v025/recovery/turn-recovery.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { readText, run } from '../reply/support.js';

const SENT: Message = { messageId: 'u1', role: 'ROLE_USER', contextId: 'C', parts: [{ text: 'write main.tf' }] };
const WRITING: Message = { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'Writing main.tf.' }] };
const DONE: Message = { messageId: 'a2', role: 'ROLE_AGENT', parts: [{ text: 'Done.' }] };
/** The file's chunks, one part each: lines a "}" and a "b {" come twice in. */
const LINES = ['a {\n', '}\n', 'b {\n', '}\n', 'b {\n', '}\n'];
const part = (text: string): Part => ({ text });

const opening: StreamResponse = { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' }, history: [SENT] } };
const working: StreamResponse = { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message: WRITING } } };
const chunk = (at: number): StreamResponse => ({
  artifactUpdate: {
    taskId: 'T',
    contextId: 'C',
    artifact: { artifactId: 'F', name: 'main.tf', parts: [part(LINES[at]!)] },
    ...(at > 0 ? { append: true } : {}),
    ...(at === LINES.length - 1 ? { lastChunk: true } : {}),
  },
});
const completed: StreamResponse = { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED', message: DONE } } };
const UNBROKEN = [opening, working, ...LINES.map((_, at) => chunk(at)), completed];

/** The task as the agent's SDK stores it once the first `lines` chunks came: their parts appended to the one file. */
const storedWith = (lines: number): Task => {
  const file: Artifact = { artifactId: 'F', name: 'main.tf', parts: LINES.slice(0, lines).map(part) };
  return { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message: WRITING }, history: [SENT, WRITING], artifacts: [file] };
};

/** A turn whose stream carries `carried` events then breaks; each SubscribeToTask answers with the next of `subscriptions` (then breaks). */
function recovered(carried: number, subscriptions: StreamResponse[][]): AsyncIterable<StreamResponse> {
  let subscribed = 0;
  const port = {
    async *sendStreamingMessage(): AsyncGenerator<StreamResponse> {
      yield* UNBROKEN.slice(0, carried);
      throw new Error('socket hang up');
    },
    getTask: async (): Promise<Task> => {
      throw new Error('not read in these turns');
    },
    async *subscribeToTask(): AsyncGenerator<StreamResponse> {
      yield* subscriptions[subscribed++] ?? [];
      throw new Error('socket hang up');
    },
  };
  const deps = { port, options: { requestTimeoutMs: 60_000 } } as never;
  const request = { message: SENT } as never;
  return recoverableTurn(request, { signal: new AbortController().signal } as never, deps, new TurnTracker({ sent: SENT }));
}

async function read(events: AsyncIterable<StreamResponse>): Promise<string> {
  const out: StreamResponse[] = [];
  for await (const event of events) out.push(event);
  return readText(run(out));
}

describe('a file written in appended chunks, its stream broken mid-file', () => {
  const unbroken = readText(run(UNBROKEN));

  it('the unbroken turn: the file whole, once', () => {
    expect(unbroken).toContain(LINES.join(''));
  });

  it('begun before the break, chunks after it in the snapshot: the rest shown once, then the live ones', async () => {
    // Carried: "a {" (the stream's 3rd event). The snapshot holds 4 lines; the 4th was sent as the subscription listened.
    const text = await read(recovered(3, [[{ task: storedWith(4) }, chunk(3), chunk(4), chunk(5), completed]]));
    expect(text).toBe(unbroken);
  });

  it('begun after the break, its end sent as the subscription listened: the end once', async () => {
    const text = await read(recovered(2, [[{ task: storedWith(6) }, chunk(5), completed]]));
    expect(text).toBe(unbroken);
  });

  it('a live chunk that repeats a line inside the file, then the subscription breaks: the next snapshot shows it, once', async () => {
    // "b {" after 4 lines fits the snapshot's 3rd line: held back, it could be a repeat. The subscription breaks
    // before the next event tells; the next snapshot holds it as the agent appended it, and shows it then.
    const text = await read(
      recovered(3, [
        [{ task: storedWith(4) }, chunk(4)],
        [{ task: storedWith(5) }, chunk(5), completed],
      ]),
    );
    expect(text).toBe(unbroken);
  });

  it('a live chunk that repeats a line inside the file is new when the next event does not carry it on: shown before it', async () => {
    // The last "}" fits the snapshot's 2nd and 4th lines, neither its end: held back, then shown before the final status.
    const text = await read(recovered(3, [[{ task: storedWith(5) }, chunk(5), completed]]));
    expect(text).toBe(unbroken);
  });

  it('what cannot be told: new chunks that say again the snapshot file’s last lines are taken for their repeat', async () => {
    // The snapshot holds 4 lines, and "b {" "}" come live new: they are its last two lines again.
    const text = await read(recovered(3, [[{ task: storedWith(4) }, chunk(4), chunk(5), completed]]));
    expect(text).toBe(unbroken.replace(LINES.join(''), LINES.slice(0, 4).join('')));
  });
});
