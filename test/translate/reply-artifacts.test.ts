/**
 * The reply is delivered once: an upstream artifact that only repeats the turn's reply text is not
 * sent next to the facade's own text artifact (Bailian shows the text of every artifact).
 */
import { describe, expect, it } from 'vitest';
import type { Artifact, Part, StreamResponse, Task } from '../../src/model/index.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import { V025StreamEvent, type V025StreamEvent as Event025 } from '../../src/protocol/v025/index.js';
import { createV1ToV025StreamTranslator, repeatsReply, taskResultToV025 } from '../../src/translate/index.js';

const bailian = loadMappingProfile('bailian');
const NOW = '2030-01-01T00:00:00.000Z';
const FILE: Part = { url: 'https://files.example.com/main.tf', mediaType: 'text/plain', filename: 'main.tf' };

describe('repeatsReply', () => {
  const cases: Array<{ name: string; parts: Part[]; reply: string; repeats: boolean }> = [
    { name: 'one text part equal to the reply', parts: [{ text: 'Hello.' }], reply: 'Hello.', repeats: true },
    { name: 'text parts that join to the reply', parts: [{ text: 'Hel' }, { text: 'lo.' }], reply: 'Hello.', repeats: true },
    { name: 'a text part with a media type and metadata', parts: [{ text: 'Hello.', mediaType: 'text/plain', metadata: { a: 1 } }], reply: 'Hello.', repeats: true },
    { name: 'other text', parts: [{ text: 'Hello!' }], reply: 'Hello.', repeats: false },
    { name: 'the reply with other whitespace', parts: [{ text: 'Hello. ' }], reply: 'Hello.', repeats: false },
    { name: 'only a part of the reply', parts: [{ text: 'Hel' }], reply: 'Hello.', repeats: false },
    { name: 'the reply plus a file', parts: [{ text: 'Hello.' }, FILE], reply: 'Hello.', repeats: false },
    { name: 'a file alone', parts: [FILE], reply: 'Hello.', repeats: false },
    { name: 'data', parts: [{ data: { text: 'Hello.' } }], reply: 'Hello.', repeats: false },
    { name: 'no reply text at all', parts: [{ text: '' }], reply: '', repeats: false },
    { name: 'no parts', parts: [], reply: 'Hello.', repeats: false },
  ];
  for (const { name, parts, reply, repeats } of cases) {
    it(`${repeats ? 'repeats' : 'does not repeat'}: ${name}`, () => {
      expect(repeatsReply(parts, reply)).toBe(repeats);
    });
  }
});

function run(events: StreamResponse[]): Event025[] {
  let n = 0;
  const t = createV1ToV025StreamTranslator({ profile: bailian, upstreamMetadata: 'drop', newArtifactId: () => `gen-${++n}`, now: () => NOW });
  const out = [...events.flatMap((event) => t.push(event)), ...t.end()];
  for (const event of out) expect(V025StreamEvent.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return out;
}

const shape = (out: Event025[]) =>
  out.map((event) => {
    if (event.kind === 'artifact-update') return `artifact:${event.artifact.artifactId}:${event.lastChunk ? 'last' : 'more'}`;
    if (event.kind === 'status-update') return `status:${event.status.state}:${event.final ? 'final' : 'open'}`;
    return event.kind === 'task' ? `task:${event.status.state}${event.artifacts ? `+${event.artifacts.map((a) => a.artifactId)}` : ''}` : event.kind;
  });

/** Every text a client that shows all artifacts shows, artifact by artifact (pieces of one artifact joined). */
function shownTexts(out: Event025[]): string[] {
  const byId = new Map<string, string>();
  const artifacts = out.flatMap((event) =>
    event.kind === 'artifact-update' ? [event.artifact] : event.kind === 'task' ? (event.artifacts ?? []) : [],
  );
  for (const artifact of artifacts) {
    const text = artifact.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    byId.set(artifact.artifactId, (byId.get(artifact.artifactId) ?? '') + text);
  }
  return [...byId.values()].filter((text) => text !== '');
}

const submitted: StreamResponse = { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } };
const working = (text: string, messageId = 'T-chunk', metadata?: Record<string, unknown>): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_WORKING', message: { messageId, role: 'ROLE_AGENT', parts: [{ text }] } },
    ...(metadata ? { metadata } : {}),
  },
});
const aggregate = (text: string) => working(text, 'T-final', { iac_code: { assistantFinal: { complete: true } } });
const ended = (state: 'TASK_STATE_INPUT_REQUIRED' | 'TASK_STATE_COMPLETED', text?: string): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state, ...(text === undefined ? {} : { message: { messageId: 'T-end', role: 'ROLE_AGENT', parts: [{ text }] } }) },
  },
});
const artifact = (artifactId: string, parts: Part[], extra: { append?: boolean; lastChunk?: boolean } = {}): StreamResponse => ({
  artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId, name: 'reply.txt', parts }, ...extra },
});

describe('stream: an upstream artifact repeating the reply is not sent again', () => {
  const cases: Array<{ name: string; events: StreamResponse[]; shape: string[]; shown: string[] }> = [
    {
      name: "the demo agent's turn: chunks, a reply.txt with the whole text, the aggregate",
      events: [submitted, working('Hel'), working('lo.'), artifact('up', [{ text: 'Hello.' }], { lastChunk: true }), aggregate('Hello.'), ended('TASK_STATE_INPUT_REQUIRED')],
      shape: ['task:submitted', 'artifact:gen-1:more', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hello.'],
    },
    {
      name: 'the repeat split over several text parts',
      events: [submitted, working('Hello.'), artifact('up', [{ text: 'Hel' }, { text: 'lo.' }]), ended('TASK_STATE_COMPLETED')],
      shape: ['task:submitted', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hello.'],
    },
    {
      name: 'an artifact with other text is kept',
      events: [submitted, working('Hello.'), artifact('log', [{ text: 'tool log' }]), ended('TASK_STATE_COMPLETED')],
      shape: ['task:submitted', 'artifact:gen-1:more', 'artifact:log:more', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hello.', 'tool log'],
    },
    {
      name: 'an artifact with the reply and a file is kept',
      events: [submitted, working('Hello.'), artifact('files', [{ text: 'Hello.' }, FILE]), ended('TASK_STATE_COMPLETED')],
      shape: ['task:submitted', 'artifact:gen-1:more', 'artifact:files:more', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hello.', 'Hello.'],
    },
    {
      name: 'an a2a-js agent: the reply streamed as artifact pieces, then repeated by the final status',
      events: [submitted, artifact('up', [{ text: 'Hel' }]), artifact('up', [{ text: 'lo.' }], { append: true, lastChunk: true }), ended('TASK_STATE_COMPLETED', 'Hello.')],
      shape: ['task:submitted', 'artifact:up:more', 'artifact:up:last', 'status:completed:final'],
      shown: ['Hello.'],
    },
    {
      name: 'artifact pieces followed by an iac-code aggregate of the same text',
      events: [submitted, artifact('up', [{ text: 'Hello.' }]), aggregate('Hello.'), ended('TASK_STATE_INPUT_REQUIRED')],
      shape: ['task:submitted', 'artifact:up:more', 'status:completed:final'],
      shown: ['Hello.'],
    },
    {
      name: 'an artifact replaced (append: false) by other text no longer counts as the reply',
      events: [submitted, artifact('up', [{ text: 'Hello.' }]), artifact('up', [{ text: 'draft 2' }]), ended('TASK_STATE_COMPLETED', 'Hello.')],
      shape: ['task:submitted', 'artifact:up:more', 'artifact:up:more', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hello.draft 2', 'Hello.'],
    },
    {
      name: 'a final reply other than the artifact is still sent',
      events: [submitted, artifact('up', [{ text: 'Hel' }]), ended('TASK_STATE_COMPLETED', 'Hello.')],
      shape: ['task:submitted', 'artifact:up:more', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hel', 'Hello.'],
    },
    {
      name: 'an ordinary chunk equal to an earlier artifact is a piece of the reply, not a repeat',
      events: [submitted, artifact('up', [{ text: 'Hi' }]), working('Hi'), working(' there'), ended('TASK_STATE_COMPLETED')],
      shape: ['task:submitted', 'artifact:up:more', 'artifact:gen-1:more', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hi', 'Hi there'],
    },
    {
      name: 'a one-shot finished Task: its artifact repeating the reply is left out, the file stays',
      events: [
        {
          task: {
            id: 'T',
            contextId: 'C',
            status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Hello.' }] } },
            artifacts: [
              { artifactId: 'up', parts: [{ text: 'Hello.' }] },
              { artifactId: 'tf', parts: [FILE] },
            ],
          },
        },
      ],
      shape: ['task:completed+tf', 'artifact:gen-1:last', 'status:completed:final'],
      shown: ['Hello.'],
    },
  ];
  for (const { name, events, shape: expected, shown } of cases) {
    it(name, () => {
      const out = run(events);
      expect(shape(out)).toEqual(expected);
      expect(shownTexts(out)).toEqual(shown);
    });
  }
});

describe('message/send: an upstream artifact repeating the reply is left out', () => {
  const reply = (text: string) => ({ messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text }] });
  const task = (state: Task['status']['state'], statusText: string | undefined, artifacts: Artifact[], metadata?: Record<string, unknown>): Task => ({
    id: 'T',
    contextId: 'C',
    status: { state, ...(statusText === undefined ? {} : { message: reply(statusText) }) },
    artifacts,
    ...(metadata ? { metadata } : {}),
  });
  const cases: Array<{ name: string; task: Task; artifacts: unknown[] }> = [
    {
      name: 'the repeat goes, other text and files stay, in order',
      task: task('TASK_STATE_COMPLETED', 'Hello.', [
        { artifactId: 'same', parts: [{ text: 'Hello.' }] },
        { artifactId: 'split', parts: [{ text: 'Hel' }, { text: 'lo.' }] },
        { artifactId: 'other', parts: [{ text: 'tool log' }] },
        { artifactId: 'tf', parts: [FILE] },
      ]),
      artifacts: [
        { artifactId: 'reply', parts: [{ kind: 'text', text: 'Hello.' }] },
        { artifactId: 'other', parts: [{ kind: 'text', text: 'tool log' }] },
        { artifactId: 'tf', parts: [{ kind: 'file', file: { uri: FILE.url, mimeType: 'text/plain', name: 'main.tf' } }] },
      ],
    },
    {
      name: 'a task whose only artifact is the reply: the reply once',
      task: task('TASK_STATE_INPUT_REQUIRED', 'Hello.', [{ artifactId: 'same', parts: [{ text: 'Hello.', mediaType: 'text/plain' }] }]),
      artifacts: [{ artifactId: 'reply', parts: [{ kind: 'text', text: 'Hello.' }] }],
    },
    {
      name: 'no reply text (a failed task): a text artifact is kept',
      task: task('TASK_STATE_FAILED', 'Boom', [{ artifactId: 'partial', parts: [{ text: 'Boom' }] }]),
      artifacts: [{ artifactId: 'partial', parts: [{ kind: 'text', text: 'Boom' }] }],
    },
  ];
  for (const { name, task: input, artifacts } of cases) {
    it(name, () => {
      const result = taskResultToV025(input, bailian, { now: () => NOW, newArtifactId: () => 'reply' });
      expect(result.artifacts).toStrictEqual(artifacts);
    });
  }

  it("device commands of a left-out artifact still reach the last artifact", () => {
    const commands = [{ name: 'flash', params: [], commandRequestId: 'c-1' }];
    const input = task('TASK_STATE_COMPLETED', 'Hello.', [{ artifactId: 'same', parts: [{ text: 'Hello.' }], metadata: { commands } }]);
    const result = taskResultToV025(input, bailian, { now: () => NOW, newArtifactId: () => 'reply', deviceCommands: { metadataKey: 'bailian' } });
    expect(result.artifacts).toStrictEqual([{ artifactId: 'reply', parts: [{ kind: 'text', text: 'Hello.' }], metadata: { commands } }]);
  });
});

describe('message/send on a follow-up turn: only the artifacts this turn added or changed', () => {
  const before: Artifact[] = [
    { artifactId: 'turn-1', parts: [{ text: 'first answer' }] },
    { artifactId: 'tf', parts: [FILE] },
    { artifactId: 'log', parts: [{ text: 'step 1' }] },
  ];
  const after: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'second answer' }] } },
    artifacts: [
      before[0]!,
      before[1]!,
      { artifactId: 'log', parts: [{ text: 'step 1' }, { text: 'step 2' }] },
      { artifactId: 'turn-2', parts: [{ text: 'notes' }] },
    ],
  };

  it('leaves out unchanged earlier artifacts, keeps grown and new ones', () => {
    const result = taskResultToV025(after, bailian, { now: () => NOW, newArtifactId: () => 'reply', earlierArtifacts: before });
    expect(result.artifacts?.map((artifact) => artifact.artifactId)).toEqual(['reply', 'log', 'turn-2']);
  });

  it('without earlier artifacts every artifact of the task is answered', () => {
    const result = taskResultToV025(after, bailian, { now: () => NOW, newArtifactId: () => 'reply' });
    expect(result.artifacts?.map((artifact) => artifact.artifactId)).toEqual(['reply', 'turn-1', 'tf', 'log', 'turn-2']);
  });
});
