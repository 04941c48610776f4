import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task, TaskState } from '../../../../src/model/index.js';
import { createTurnReply, taskTurnEvents } from '../../../../src/surfaces/v025/reply/index.js';
import { IAC_CODE_TURN } from '../../../translate/v025/iac-code-turn.fixture.js';
import { artifact, bailian, options, readText, run, shape, spec, status, submitted, tool } from './support.js';

const FINAL = { metadata: { iac_code: { assistantFinal: { complete: true } } } };

describe('the captured iac-code turn', () => {
  it('bailian: task → one reply artifact, every word once (the file as a line) → completed, final', () => {
    const out = run(IAC_CODE_TURN);
    expect(shape(out)).toEqual([
      'task:submitted',
      'artifact:gen-1:more',
      'artifact:gen-1:more',
      'artifact:gen-1:more',
      'artifact:gen-1:more',
      'artifact:gen-1:last',
      'status:completed:final',
    ]);
    expect(readText(out)).toBe('Hello world.\nmain.tf (text/plain, 14 bytes)\nDone.');
    expect(out.at(-1)).not.toHaveProperty('status.message');
    expect(JSON.stringify(out)).not.toContain('iac_code');
  });

  it('never holds a chunk back: the text of an event goes out with that event', () => {
    const reply = createTurnReply(options());
    const sent = IAC_CODE_TURN.map((event) => readText(reply.push(event)));
    expect(sent).toEqual(['', '', '', '', 'Hello ', 'world.', '', '', '', '', '\nmain.tf (text/plain, 14 bytes)', '', '\nDone.', '', '', '']);
  });

  it('plain 0.2.5: ends input-required; the file artifact keeps its identity and its url', () => {
    const out = run(IAC_CODE_TURN, options(spec));
    expect(out.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    const file = out.find((event) => event.kind === 'artifact-update' && event.artifact.artifactId === 'ART');
    expect(file).toMatchObject({
      artifact: { name: 'main.tf', parts: [{ kind: 'file', file: { uri: 'iac-code-artifact://ART/main.tf', name: 'main.tf' } }] },
    });
    const reply = out.filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === 'gen-1');
    expect(readText(reply)).toBe('Hello world.\nDone.');
  });

  it("upstream-metadata 'pass': tool, usage and thinking details become open working status-updates; the text is unchanged", () => {
    const out = run(IAC_CODE_TURN, options(bailian, { upstreamMetadata: 'pass' }));
    const open = out.filter((event) => event.kind === 'status-update' && !event.final);
    expect(open.length).toBeGreaterThan(5);
    expect(
      open.every(
        (event) =>
          (event.kind === 'status-update' && event.status.state === 'working') ||
          (event.kind === 'status-update' && event.status.state === 'submitted'),
      ),
    ).toBe(true);
    expect(readText(out)).toBe('Hello world.\nmain.tf (text/plain, 14 bytes)\nDone.');
  });

  it('ignores everything after the final event', () => {
    const reply = createTurnReply(options());
    for (const event of IAC_CODE_TURN) reply.push(event);
    expect(reply.done).toBe(true);
    expect(reply.push(status('TASK_STATE_WORKING', 'late'))).toEqual([]);
    expect(reply.close()).toEqual([]);
    expect(reply.fail('late')).toEqual([]);
  });
});

describe('the repeat rules', () => {
  it("iac-code's assistantFinal after chunks is not shown again; alone, it is the answer and the last chunk", () => {
    expect(
      readText(
        run([
          submitted,
          status('TASK_STATE_WORKING', 'Hi there.'),
          status('TASK_STATE_WORKING', 'Hi there.', FINAL, 'T-2'),
          status('TASK_STATE_INPUT_REQUIRED'),
        ]),
      ),
    ).toBe('Hi there.');
    const alone = run([submitted, status('TASK_STATE_WORKING', 'Only the final.', FINAL, 'T-2'), status('TASK_STATE_INPUT_REQUIRED')]);
    expect(readText(alone)).toBe('Only the final.');
  });

  it('assistantFinal repeats only the text after the last tool call: the text before it stays', () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'Drafting.'),
      tool,
      status('TASK_STATE_WORKING', 'Wrote it ✓'),
      status('TASK_STATE_WORKING', 'Wrote it ✓', FINAL, 'T-2'),
      status('TASK_STATE_INPUT_REQUIRED'),
    ]);
    expect(readText(out)).toBe('Drafting.\nWrote it ✓');
  });

  it('assistantFinal is not shown again when a file came after the text it repeats', () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'Here is '),
      status('TASK_STATE_WORKING', 'main.tf.'),
      artifact('ART', [{ text: 'resource "alicloud_vpc" "main" {}' }], { lastChunk: true }),
      status('TASK_STATE_WORKING', 'Here is main.tf.', FINAL, 'T-2'),
      status('TASK_STATE_INPUT_REQUIRED'),
    ]);
    expect(readText(out)).toBe('Here is main.tf.\nresource "alicloud_vpc" "main" {}');
  });

  it('a final status repeating the whole reply under a new messageId is not shown again', () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'Part one, '),
      status('TASK_STATE_WORKING', 'part two.'),
      status('TASK_STATE_COMPLETED', 'Part one, part two.', {}, 'final'),
    ]);
    expect(readText(out)).toBe('Part one, part two.');
  });

  it("an artifact repeating a message (the demo agent's reply.txt) is not shown again", () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'Echo: hi'),
      artifact('reply', [{ text: 'Echo: hi' }], { lastChunk: true }),
      status('TASK_STATE_INPUT_REQUIRED'),
    ]);
    expect(readText(out)).toBe('Echo: hi');
  });

  it('a chunk that merely equals the text so far within the same message is kept', () => {
    expect(
      readText(run([submitted, status('TASK_STATE_WORKING', 'ha'), status('TASK_STATE_WORKING', 'ha'), status('TASK_STATE_INPUT_REQUIRED')])),
    ).toBe('haha');
  });

  it('a different message, and text after a tool call, start on a new line; a line already ended needs none', () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'First.', {}, 'a'),
      status('TASK_STATE_WORKING', 'Second.', {}, 'b'),
      tool,
      status('TASK_STATE_WORKING', 'Third.\n', {}, 'b'),
      status('TASK_STATE_WORKING', 'Fourth.', {}, 'c'),
      status('TASK_STATE_INPUT_REQUIRED'),
    ]);
    expect(readText(out)).toBe('First.\nSecond.\nThird.\nFourth.');
  });

  it('the question of an input-required status is part of the reply', () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'Looking.'),
      artifact('r', [{ text: 'A' }]),
      artifact('r', [{ text: 'B' }], { append: true, lastChunk: true }),
      status('TASK_STATE_INPUT_REQUIRED', 'Which region?', {}, 'q'),
    ]);
    expect(readText(out)).toBe('Looking.\nAB\nWhich region?');
    expect(out.at(-2)).toMatchObject({ kind: 'artifact-update', lastChunk: true, artifact: { parts: [{ text: '\nWhich region?' }] } });
  });
});

describe('how turns end', () => {
  it('a waiting Task that opens the stream ends the turn only when nothing comes after it', () => {
    // An a2a-js 1.x agent opens every stream with the Task, also the answer to its question: as it was, waiting.
    const question = { messageId: 'q', role: 'ROLE_AGENT' as const, parts: [{ text: 'Which date?' }] };
    const answer = { messageId: 'a', role: 'ROLE_USER' as const, parts: [{ text: 'tomorrow' }] };
    const waiting = {
      task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' as const, message: question }, history: [question, answer] },
    };
    const goesOn = run([waiting, status('TASK_STATE_WORKING', 'Booked for tomorrow.', {}, 'w'), status('TASK_STATE_COMPLETED')]);
    expect(readText(goesOn)).toBe('Booked for tomorrow.');
    expect(shape(goesOn)).toEqual(['task:submitted', 'artifact:gen-1:more', 'artifact:gen-1:last', 'status:completed:final']);
    expect(readText(run([waiting]))).toBe('Which date?');
    expect(readText(run([waiting, {} as StreamResponse]))).toBe('Which date?');
    expect(shape(run([waiting]))).toEqual(['task:submitted', 'artifact:gen-1:last', 'status:completed:final']);
  });

  it("failReply mid-stream: bailian shows the reason as the reply's last chunk; plain 0.2.5 keeps it on the status", () => {
    const reply = createTurnReply(options());
    reply.push(submitted);
    reply.push(status('TASK_STATE_WORKING', 'Half'));
    const failed = reply.fail('The upstream broke off');
    expect(readText(failed)).toBe('\nThe upstream broke off');
    expect(failed.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });

    const plain = createTurnReply(options(spec));
    plain.push(submitted);
    plain.push(status('TASK_STATE_WORKING', 'Half'));
    const out = plain.fail('The upstream broke off');
    expect(readText(out)).toBe('');
    expect(out.at(-1)).toMatchObject({ status: { state: 'failed', message: { parts: [{ kind: 'text', text: 'The upstream broke off' }] } } });
  });

  it('fail before the first event produces nothing (the caller answers a JSON-RPC error)', () => {
    expect(createTurnReply(options()).fail('boom')).toEqual([]);
  });

  it('CANCELED: failed for bailian, canceled for the plain profile, the reason read once either way', () => {
    const events = [submitted, status('TASK_STATE_CANCELED', 'Task canceled.', {}, 'T-5')];
    expect(run(events).at(-1)).toMatchObject({ status: { state: 'failed' }, final: true });
    expect(readText(run(events))).toBe('Task canceled.');
    expect(run(events, options(spec)).at(-1)).toMatchObject({ status: { state: 'canceled', message: { parts: [{ text: 'Task canceled.' }] } } });
  });

  it('auth-required stays open (with its message) for the plain profile and ends the turn for bailian', () => {
    const events = [
      submitted,
      status('TASK_STATE_AUTH_REQUIRED', 'Sign in first.'),
      status('TASK_STATE_WORKING', 'Thanks.'),
      status('TASK_STATE_COMPLETED'),
    ];
    expect(shape(run(events, options(spec)))).toEqual([
      'task:submitted',
      'status:auth-required:open',
      'artifact:gen-1:more',
      'artifact:gen-1:last',
      'status:completed:final',
    ]);
    const forBailian = run(events);
    expect(forBailian.at(-1)).toMatchObject({ status: { state: 'failed' }, final: true });
    expect(readText(forBailian)).toBe('Sign in first.');
  });

  it('a stream that starts with an update gets a Task first', () => {
    expect(shape(run([status('TASK_STATE_WORKING', 'Hi'), status('TASK_STATE_INPUT_REQUIRED')]))[0]).toBe('task:submitted');
  });

  it('a direct Message: a 0.2.5 Message for the plain profile, a one-artifact completed task for bailian', () => {
    const message = { message: { messageId: 'm', role: 'ROLE_AGENT' as const, contextId: 'C', parts: [{ text: 'Hi!' }, { data: { a: 1 } }] } };
    const plain = run([message], options(spec));
    expect(plain).toMatchObject([
      {
        kind: 'message',
        role: 'agent',
        parts: [
          { kind: 'text', text: 'Hi!' },
          { kind: 'data', data: { a: 1 } },
        ],
      },
    ]);
    const forBailian = run([message]);
    expect(shape(forBailian)).toEqual(['task:submitted', 'artifact:gen-2:last', 'status:completed:final']);
    expect(readText(forBailian)).toBe('Hi!\n```json\n{\n  "a": 1\n}\n```');
  });

  it("a finished Task in one event is replayed: its turn's agent messages, its new artifacts, its final message", () => {
    const earlier = { artifactId: 'old', parts: [{ text: 'yesterday' }] };
    const task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_COMPLETED' as const, message: { messageId: 'f', role: 'ROLE_AGENT' as const, parts: [{ text: 'Done.' }] } },
      history: [
        { messageId: 'u0', role: 'ROLE_USER' as const, parts: [{ text: 'first' }] },
        { messageId: 'a0', role: 'ROLE_AGENT' as const, parts: [{ text: 'old answer' }] },
        { messageId: 'u1', role: 'ROLE_USER' as const, parts: [{ text: 'second' }] },
        { messageId: 'a1', role: 'ROLE_AGENT' as const, parts: [{ text: 'Working on it.' }] },
      ],
      artifacts: [earlier, { artifactId: 'new', parts: [{ text: 'the result' }] }],
    };
    expect(taskTurnEvents(task, [earlier]).map((event) => Object.keys(event)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    const out = run([{ task }], options(bailian, { earlierArtifacts: [earlier] }));
    expect(readText(out)).toBe('Working on it.\nthe result\nDone.');
    expect(out.at(-1)).toMatchObject({ status: { state: 'completed' }, final: true });
  });
});

const withState = (event: { task: Task }, state: TaskState): StreamResponse => ({ task: { ...event.task, status: { ...event.task.status, state } } });

describe('Bailian device commands', () => {
  const FLASH = { name: 'flash', commandRequestId: 'cmd-1' };
  const VOLUME = { name: 'volume', commandRequestId: 'cmd-2' };

  it('from status and artifact metadata, once each, on the lastChunk artifact-update only', () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'Turning on ', { metadata: { commands: [FLASH] } }),
      artifact('A', [{ text: 'log' }], { lastChunk: true, metadata: {} }),
      {
        artifactUpdate: {
          taskId: 'T',
          contextId: 'C',
          artifact: { artifactId: 'B', parts: [{ text: 'more' }], metadata: { bailian: { commands: [VOLUME, FLASH] } } },
        },
      },
      status('TASK_STATE_INPUT_REQUIRED'),
    ]);
    const carrying = out.filter((event) => event.kind === 'artifact-update' && event.artifact.metadata?.commands);
    expect(carrying).toHaveLength(1);
    expect(carrying[0]).toMatchObject({ lastChunk: true, artifact: { metadata: { commands: [FLASH, VOLUME] } } });
    expect(out.at(-2)).toBe(carrying[0]);
  });

  it("a follow-up that opens with the task as it was does not send its earlier turns' commands again", () => {
    const lightOn = { name: 'light.on', commandRequestId: 'cmd-old' };
    const asked = { messageId: 'q', role: 'ROLE_AGENT' as const, parts: [{ text: 'Which room?' }], metadata: { commands: [lightOn] } };
    const earlier = { artifactId: 'log', parts: [{ text: 'Light on.' }], metadata: { bailian: { commands: [lightOn] } } };
    const opening = {
      task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' as const, message: asked }, artifacts: [earlier] },
    };
    for (const state of ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING'] as const) {
      const out = run(
        [
          withState(opening, state),
          status('TASK_STATE_WORKING', 'Dimming the kitchen.', { metadata: { commands: [VOLUME] } }),
          status('TASK_STATE_COMPLETED'),
        ],
        options(undefined, { earlierArtifacts: [earlier] }),
      );
      const sent = out.flatMap((event) => (event.kind === 'artifact-update' ? (event.artifact.metadata?.commands ?? []) : []));
      expect(sent, state).toEqual([VOLUME]);
    }
  });

  it('a turn without text gets an empty closing chunk carrying the commands', () => {
    const out = run([submitted, status('TASK_STATE_INPUT_REQUIRED', undefined, { metadata: { commands: [FLASH] } })]);
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:last', 'status:completed:final']);
    expect(out[1]).toMatchObject({ artifact: { parts: [{ kind: 'text', text: '' }], metadata: { commands: [FLASH] } } });
  });

  it("plain profile: an upstream artifact keeps its identity but not its commands, which go to the turn's last artifact", () => {
    const out = run(
      [
        submitted,
        artifact('A', [{ text: 'log' }], { lastChunk: true }),
        {
          artifactUpdate: {
            taskId: 'T',
            contextId: 'C',
            artifact: { artifactId: 'B', parts: [{ text: 'x' }], metadata: { commands: [FLASH], keep: 1 } },
          },
        },
        status('TASK_STATE_WORKING', 'ok'),
        status('TASK_STATE_COMPLETED'),
      ],
      options(spec),
    );
    const b = out.find((event) => event.kind === 'artifact-update' && event.artifact.artifactId === 'B');
    expect(b).toMatchObject({ artifact: { metadata: { keep: 1 } } });
    expect(out.at(-2)).toMatchObject({ lastChunk: true, artifact: { artifactId: 'gen-1', metadata: { commands: [FLASH] } } });
  });
});
