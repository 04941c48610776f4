import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamResponse, TaskState } from '../../src/model/index.js';
import { loadMappingProfile, type MappingProfile } from '../../src/mappings/index.js';
import { V025StreamEvent, type V025StreamEvent as Event025 } from '../../src/protocol/v025/index.js';
import { createV1ToV025StreamTranslator } from '../../src/translate/index.js';
import { IAC_CODE_TURN, IAC_CODE_TURN_TEXT } from './iac-code-turn.fixture.js';

const bailian = loadMappingProfile('bailian');
const spec = loadMappingProfile('a2a-0.2.5');
const NOW = '2030-01-01T00:00:00.000Z';

function translator(profile: MappingProfile = bailian, upstreamMetadata: 'pass' | 'drop' = 'drop') {
  let n = 0;
  return createV1ToV025StreamTranslator({ profile, upstreamMetadata, newArtifactId: () => `gen-${++n}`, now: () => NOW });
}

function run(events: StreamResponse[], profile?: MappingProfile, metadata?: 'pass' | 'drop'): Event025[] {
  const t = translator(profile, metadata);
  const out = [...events.flatMap((event) => t.push(event)), ...t.end()];
  for (const event of out) expect(V025StreamEvent.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return out;
}

/** What a 0.2.5 client that appends the chunks of one artifact shows. */
function joined(out: Event025[], artifactId = 'gen-1'): string {
  return out
    .filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === artifactId)
    .flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts : []))
    .map((part) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

const shape = (out: Event025[]) =>
  out.map((event) => {
    switch (event.kind) {
      case 'task':
        return `task:${event.status.state}`;
      case 'message':
        return 'message';
      case 'status-update':
        return `status:${event.status.state}:${event.final ? 'final' : 'open'}`;
      case 'artifact-update':
        return `artifact:${event.artifact.artifactId}:${event.append ? 'append' : '-'}:${event.lastChunk ? 'last' : 'more'}`;
    }
  });

const status = (state: TaskState, text?: string, extra: Record<string, unknown> = {}, messageId = 'T-message'): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state, ...(text === undefined ? {} : { message: { messageId, role: 'ROLE_AGENT', parts: [{ text }] } }) },
    ...extra,
  },
});
const submittedTask: StreamResponse = { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } };

describe('1.0 → 0.2.5 stream: the captured iac-code turn (iac-code-surface.md §4.3)', () => {
  it('bailian, metadata dropped: task → chunks → lastChunk → completed final, text not doubled', () => {
    const out = run(IAC_CODE_TURN);
    expect(shape(out)).toEqual([
      'task:submitted',
      'artifact:gen-1:append:more',
      'artifact:gen-1:append:more',
      'artifact:ART:-:last',
      'artifact:gen-1:append:last',
      'status:completed:final',
    ]);
    expect(joined(out)).toBe(IAC_CODE_TURN_TEXT);
    expect(out[0]).toStrictEqual({ kind: 'task', id: 'TASK', contextId: 'CTX', status: { state: 'submitted', timestamp: NOW } });
    expect(out.at(-1)).toStrictEqual({
      kind: 'status-update',
      taskId: 'TASK',
      contextId: 'CTX',
      status: { state: 'completed', timestamp: '2026-11-29T11:25:08.883468Z' },
      final: true,
    });
  });

  it('turns the iac-code-artifact:// url into a file part with a uri', () => {
    const artifact = run(IAC_CODE_TURN).find((event) => event.kind === 'artifact-update' && event.artifact.artifactId === 'ART');
    expect(artifact).toMatchObject({
      artifact: { name: 'main.tf', parts: [{ kind: 'file', file: { uri: 'iac-code-artifact://ART/main.tf', mimeType: 'text/plain', name: 'main.tf' } }] },
      lastChunk: true,
    });
  });

  it('the plain 0.2.5 profile ends the turn in input-required, final', () => {
    const out = run(IAC_CODE_TURN, spec);
    expect(out.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'input-required' }, final: true });
    expect(joined(out)).toBe(IAC_CODE_TURN_TEXT);
  });

  it("upstreamMetadata 'pass': tool/usage/thinking become working status-updates, text still exact", () => {
    const out = run(IAC_CODE_TURN, bailian, 'pass');
    const open = out.filter((event) => event.kind === 'status-update' && !event.final);
    expect(open.length).toBe(9); // submitted, working, thinking, usage, 4 tool events, usage
    for (const event of open) expect(event).toMatchObject({ status: { state: expect.stringMatching(/submitted|working/) }, final: false });
    expect(open.some((event) => JSON.stringify(event.metadata).includes('raw_thinking'))).toBe(true);
    expect(joined(out)).toBe(IAC_CODE_TURN_TEXT);
    const textChunks = out.filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === 'gen-1');
    expect(textChunks.filter((event) => event.kind === 'artifact-update' && event.lastChunk)).toHaveLength(1);
    expect(textChunks.at(-1)).toMatchObject({ lastChunk: true });
    expect(out.at(-1)).toMatchObject({ kind: 'status-update', final: true, metadata: { iac_code: { iacCodeSessionId: 'SESS' } } });
  });

  it('ignores everything after the final event', () => {
    const t = translator();
    for (const event of IAC_CODE_TURN) t.push(event);
    expect(t.done).toBe(true);
    expect(t.push(status('TASK_STATE_WORKING', 'late'))).toEqual([]);
    expect(t.end()).toEqual([]);
    expect(t.fail('x')).toEqual([]);
  });
});

describe('1.0 → 0.2.5 stream: other turns', () => {
  it('a turn with no chunks: the final text becomes the only chunk', () => {
    const out = run([
      submittedTask,
      status('TASK_STATE_WORKING'),
      status('TASK_STATE_WORKING', undefined, { metadata: { iac_code: { usage: { totalTokens: 3 } } } }),
      status('TASK_STATE_WORKING', 'The answer.', { metadata: { iac_code: { assistantFinal: { complete: true } } } }, 'T-2'),
      status('TASK_STATE_INPUT_REQUIRED'),
    ]);
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:append:last', 'status:completed:final']);
    expect(joined(out)).toBe('The answer.');
  });

  it('a turn-ending status that carries the reply (generic 1.0 agent) and no chunks', () => {
    const out = run([submittedTask, status('TASK_STATE_COMPLETED', 'All done')]);
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:append:last', 'status:completed:final']);
    expect(joined(out)).toBe('All done');
    expect(out.at(-1)).not.toHaveProperty('status.message');
  });

  it('a generic agent repeating the aggregate under a new messageId is not doubled', () => {
    const out = run([
      submittedTask,
      status('TASK_STATE_WORKING', 'Hel', {}, 'c1'),
      status('TASK_STATE_WORKING', 'lo', {}, 'c1'),
      status('TASK_STATE_WORKING', 'Hello', {}, 'full'),
      status('TASK_STATE_COMPLETED', 'Hello', {}, 'final'),
    ]);
    expect(joined(out)).toBe('Hello');
  });

  it('keeps a chunk that merely equals the text so far within the same message', () => {
    const out = run([submittedTask, status('TASK_STATE_WORKING', 'ha'), status('TASK_STATE_WORKING', 'ha'), status('TASK_STATE_INPUT_REQUIRED')]);
    expect(joined(out)).toBe('haha');
  });

  it('a failure mid-stream: the text artifact is closed and a failed final status carries the message', () => {
    const t = translator();
    const out = [submittedTask, status('TASK_STATE_WORKING', 'Partial ')].flatMap((event) => t.push(event));
    out.push(...t.fail('The upstream agent stopped responding'));
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:append:last', 'status:failed:final']);
    expect(out.at(-1)).toMatchObject({
      status: {
        state: 'failed',
        timestamp: NOW,
        message: { kind: 'message', role: 'agent', taskId: 'T', contextId: 'C', parts: [{ kind: 'text', text: 'The upstream agent stopped responding' }] },
      },
    });
    expect(t.done).toBe(true);
    expect(t.end()).toEqual([]);
  });

  it('fail() before the first upstream event produces nothing (answer with a JSON-RPC error)', () => {
    expect(translator().fail('boom')).toEqual([]);
    expect(translator().end()).toEqual([]);
  });

  it("iac-code's own FAILED turn keeps its message on the status, no artifact", () => {
    const out = run([submittedTask, status('TASK_STATE_FAILED', 'A2A server currently accepts text input only.', {}, 'T-4')]);
    expect(shape(out)).toEqual(['task:submitted', 'status:failed:final']);
    expect(out.at(-1)).toMatchObject({ status: { message: { parts: [{ text: 'A2A server currently accepts text input only.' }] } } });
  });

  it('CANCELED maps to failed for bailian and canceled for the plain profile', () => {
    const events = [submittedTask, status('TASK_STATE_WORKING', 'x'), status('TASK_STATE_CANCELED', 'Task canceled.', {}, 'T-5')];
    expect(run(events).at(-1)).toMatchObject({ status: { state: 'failed' }, final: true });
    expect(run(events, spec).at(-1)).toMatchObject({ status: { state: 'canceled' }, final: true });
  });

  it('auth-required stays open in the plain profile and ends the stream for bailian', () => {
    const events = [submittedTask, status('TASK_STATE_AUTH_REQUIRED', 'Sign in please')];
    const t = translator(spec);
    expect(shape(events.flatMap((event) => t.push(event)))).toEqual(['task:submitted', 'status:auth-required:open']);
    expect(t.done).toBe(false);
    expect(shape(run(events))).toEqual(['task:submitted', 'status:failed:final']);
  });

  it('upstream closes mid-turn: the last known status is sent with final: true', () => {
    const out = run([submittedTask, status('TASK_STATE_WORKING', 'half')]);
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:append:last', 'status:working:final']);
  });

  it('a stream that starts with an update gets a synthesised Task first', () => {
    const out = run([status('TASK_STATE_WORKING', 'hi'), status('TASK_STATE_COMPLETED')]);
    expect(out[0]).toStrictEqual({ kind: 'task', id: 'T', contextId: 'C', status: { state: 'submitted', timestamp: NOW } });
    expect(joined(out)).toBe('hi');
  });

  it('a direct Message: a 0.2.5 Message for the plain profile, a one-artifact task for bailian', () => {
    const reply: StreamResponse = { message: { messageId: 'm', role: 'ROLE_AGENT', contextId: 'C', taskId: 'T', parts: [{ text: 'Hi!' }] } };
    const plain = translator(spec);
    expect(plain.push(reply)).toStrictEqual([{ kind: 'message', messageId: 'm', role: 'agent', contextId: 'C', taskId: 'T', parts: [{ kind: 'text', text: 'Hi!' }] }]);
    expect(plain.done).toBe(true);
    const out = run([reply]);
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:append:last', 'status:completed:final']);
    expect(joined(out)).toBe('Hi!');
  });

  it('a one-shot finished Task: its reply text and artifacts are streamed once', () => {
    const out = run([
      {
        task: {
          id: 'T',
          contextId: 'C',
          status: { state: 'TASK_STATE_COMPLETED' },
          history: [
            { messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'x' }] },
            { messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'y' }] },
            { messageId: 'b', role: 'ROLE_AGENT', parts: [{ text: 'xy' }] },
          ],
        },
      },
    ]);
    expect(shape(out)).toEqual(['task:completed', 'artifact:gen-1:append:last', 'status:completed:final']);
    expect(joined(out)).toBe('xy');
  });
});

describe('1.0 → 0.2.5 stream: properties', () => {
  const noise = fc.constantFrom<StreamResponse>(
    status('TASK_STATE_WORKING'),
    status('TASK_STATE_WORKING', undefined, { metadata: { iac_code: { usage: { totalTokens: 1 } } } }),
    { artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'up', parts: [{ url: 'iac-code-artifact://up/f' }] } } },
  );
  const step = fc.oneof(
    fc.string({ minLength: 1, maxLength: 8 }).map((text) => status('TASK_STATE_WORKING', text)),
    noise,
  );

  it.each(['drop', 'pass'] as const)('joined chunks equal the streamed text; one lastChunk, then one final status (%s)', (mode) => {
    fc.assert(
      // iac-code's aggregate is the whole text or only the last assistant message's (after a tool call).
      fc.property(fc.array(step, { maxLength: 30 }), fc.constantFrom('none', 'full', 'last'), (steps, aggregate) => {
        const chunks = steps.flatMap((event) => ('statusUpdate' in event ? [event.statusUpdate.status.message] : [])).map((m) => m?.parts[0]?.text ?? '');
        const text = chunks.join('');
        const events = [submittedTask, ...steps];
        if (aggregate !== 'none' && text !== '') {
          const final = aggregate === 'full' ? text : (chunks.filter((chunk) => chunk !== '').at(-1) ?? '');
          events.push(status('TASK_STATE_WORKING', final, { metadata: { iac_code: { assistantFinal: { complete: true } } } }, 'T-2'));
        }
        events.push(status('TASK_STATE_INPUT_REQUIRED'));
        const out = run(events, bailian, mode);
        expect(joined(out)).toBe(text);
        const sent = out.filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === 'gen-1');
        const last = sent.filter((event) => event.kind === 'artifact-update' && event.lastChunk);
        expect(last.length).toBe(text === '' ? 0 : 1);
        if (text !== '') expect(sent.at(-1)).toBe(last[0]);
        expect(out.filter((event) => event.kind === 'status-update' && event.final)).toHaveLength(1);
        expect(out.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
        expect(out[0]).toMatchObject({ kind: 'task' });
      }),
      { numRuns: 300 },
    );
  });
});
