import { expect } from 'vitest';
import { isActiveState, type StreamResponse, type TaskState } from '../../../../src/model/index.js';
import { loadMappingProfile, type MappingProfile } from '../../../../src/mappings/index.js';
import { V025StreamEvent, type V025StreamEvent as Event025 } from '../../../../src/protocol/v025/index.js';
import { createReplyFold, createTurnReply, decisionStateOf, facadeWords, type ReplyOptions } from '../../../../src/surfaces/v025/reply/index.js';

export const bailian = loadMappingProfile('bailian');
export const spec = loadMappingProfile('a2a-0.2.5');
export const NOW = '2030-01-01T00:00:00.000Z';

/** The reducer's options as the facade builds them for `profile`, with deterministic ids. */
export function options(profile: MappingProfile = bailian, overrides: Partial<ReplyOptions> = {}): ReplyOptions {
  let n = 0;
  return {
    profile,
    decisionState: decisionStateOf(profile, {}),
    upstreamMetadata: 'drop',
    renderParts: profile.options.renderParts,
    replyArtifacts: profile.options.replyArtifacts,
    inlineMaxBytes: 256 * 1024,
    deviceCommandsKey: 'bailian',
    words: facadeWords('en'),
    newId: () => `gen-${++n}`,
    now: () => NOW,
    ...overrides,
  };
}

/**
 * Every 0.2.5 event of a turn, each checked against the 0.2.5 schema. Events that end without the
 * caller's final state end as replyEvents ends them: closed after an interrupted state, failed mid-turn.
 */
export function run(events: StreamResponse[], replyOptions: ReplyOptions = options()): Event025[] {
  const reply = createTurnReply(replyOptions);
  const out = events.flatMap((event) => reply.push(event));
  const states = events.flatMap((event) =>
    'statusUpdate' in event ? [event.statusUpdate.status.state] : 'task' in event ? [event.task.status.state] : [],
  );
  const last = states.at(-1);
  out.push(...(last === undefined || isActiveState(last) ? reply.brokeOff() : reply.close()));
  for (const event of out) {
    const parsed = V025StreamEvent.safeParse(event);
    // The message (the event's JSON) built, and expect called, only for an event the schema refuses: done for every
    // event, they were half the CPU of the files that read thousands of turns (token-cuts.test.ts).
    if (!parsed.success) expect(parsed.success, JSON.stringify(event)).toBe(true);
  }
  return out;
}

/** What a reader who joins every artifact-update's text (Bailian) reads. */
export function readText(out: Event025[]): string {
  return out
    .flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts : []))
    .map((part) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

/** What a message/send of the same turn answers: the text of the folded Task's artifacts (createReplyFold). */
export function sentText(out: Event025[]): string | undefined {
  const fold = createReplyFold();
  for (const event of out) fold.add(event);
  const sent = fold.result();
  return sent?.kind === 'task'
    ? sent.artifacts
        ?.flatMap((artifact) => artifact.parts)
        .map((part) => (part.kind === 'text' ? part.text : ''))
        .join('')
    : undefined;
}

/** What a Bailian user reads of `events` over message/stream, checked to be what message/send shows them. */
export function shownAlike(events: StreamResponse[], replyOptions: ReplyOptions = options()): string {
  const out = run(events, replyOptions);
  const text = readText(out);
  expect(sentText(out)).toBe(text);
  return text;
}

export const shape = (out: Event025[]): string[] =>
  out.map((event) => {
    switch (event.kind) {
      case 'task':
        return `task:${event.status.state}`;
      case 'message':
        return 'message';
      case 'status-update':
        return `status:${event.status.state}:${event.final ? 'final' : 'open'}`;
      case 'artifact-update':
        return `artifact:${event.artifact.artifactId}:${event.lastChunk ? 'last' : 'more'}`;
    }
  });

export const status = (state: TaskState, text?: string, extra: Record<string, unknown> = {}, messageId = 'T-message'): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state, ...(text === undefined ? {} : { message: { messageId, role: 'ROLE_AGENT', parts: [{ text }] } }) },
    ...extra,
  },
});
export const submitted: StreamResponse = { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } };
export const tool: StreamResponse = status('TASK_STATE_WORKING', undefined, {
  metadata: { iac_code: { tool: { status: 'started', name: 'bash' } } },
});
export const artifact = (artifactId: string, parts: Record<string, unknown>[], extra: Record<string, unknown> = {}): StreamResponse => ({
  artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId, parts }, ...extra },
});
