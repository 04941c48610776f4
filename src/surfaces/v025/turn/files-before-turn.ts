import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createMemoryNotes, createRedisNotes, type ConversationNotes } from '../notes/conversation-notes.js';
import type { Artifact, Part, StreamResponse, Task } from '../../../model/index.js';
import { canonicalize } from '../../../signing/jcs.js';
import { latestTurnMessageOf } from './latest-turn-message.js';
import { fileAfter } from '../recovery/turn-rest.js';

/**
 * The files a task held before its latest follow-up turn began, as that turn's caller had been shown them: a task
 * keeps every turn's files and says nothing of which turn wrote one, so tasks/get, which shows the latest turn's
 * reply (task-reply.ts), would show the earlier turns' files again as this turn's answer, which message/send and
 * message/stream left out (their reply knows the task before the turn: reply-options.ts `earlierArtifacts`), and a
 * file the turn appended to whole, where they showed what it added. Kept per task under its caller, as a digest per
 * part: the files themselves may be large, and two copies of one file may differ in form (iac-code's URL in the
 * registry, its bytes read in since: artifacts.ts `sameArtifactFile`).
 */
export interface TurnFiles {
  /** The message that opened the turn: the note holds for the task only while that is its latest user message. */
  sentMessageId: string;
  /** Each earlier file's parts, as digests (partDigest), by its artifact id. */
  parts: Record<string, string[]>;
}

/** By caller and task id. */
export type FilesBeforeTurn = ConversationNotes<TurnFiles>;

/** A part as the file it names: iac-code's stored file by its name, type and sha256, whether its URL or its bytes are at hand. */
function partIdentity(part: Part): unknown {
  const sha = part.metadata?.sha256;
  if (typeof sha === 'string' && (part.url !== undefined || part.raw !== undefined))
    return { file: part.filename ?? '', mediaType: part.mediaType ?? '', sha256: sha.toLowerCase() };
  return part;
}

/** What tells one copy of a part from another (undefined: not JSON data, never equal). */
function partDigest(part: Part): string | undefined {
  try {
    return createHash('sha256')
      .update(canonicalize(partIdentity(part)))
      .digest('hex');
  } catch {
    return undefined;
  }
}

/** The note of a turn that sends `sentMessageId` into a task that holds `artifacts`; undefined when it holds none. */
export function turnFilesOf(sentMessageId: string, artifacts: readonly Artifact[] | undefined): TurnFiles | undefined {
  const parts: Record<string, string[]> = {};
  for (const artifact of artifacts ?? []) {
    const digests = artifact.parts.map(partDigest).filter((digest) => digest !== undefined);
    if (digests.length === artifact.parts.length) parts[artifact.artifactId] = digests;
  }
  return Object.keys(parts).length > 0 ? { sentMessageId, parts } : undefined;
}

/**
 * Notes the files the task held before a follow-up turn, as its caller was shown them (`before`), as that turn
 * begins. Best effort: a store that fails keeps none, and tasks/get then shows the task's files as before.
 */
export async function noteFilesBeforeTurn(
  store: FilesBeforeTurn,
  turn: { principal: string; taskId: string; sentMessageId: string },
  before: Task | undefined,
): Promise<void> {
  const files = turnFilesOf(turn.sentMessageId, before?.artifacts);
  if (files) await store.note(turn.principal, turn.taskId, files).catch(() => undefined);
}

/** What the latest turn found of the task's files: those it left as they were, and of those it appended to, how many parts were there. */
export interface EarlierFiles {
  unchanged: Artifact[];
  grown: ReadonlyMap<string, number>;
}

/**
 * The files of `task` its latest turn found there (a file that turn wrote anew is its own); undefined when the note
 * is of another turn (or none is kept).
 */
export function earlierFilesOf(task: Task, kept: TurnFiles | undefined): EarlierFiles | undefined {
  if (kept === undefined || latestTurnMessageOf(task)?.messageId !== kept.sentMessageId) return undefined;
  const earlier: EarlierFiles = { unchanged: [], grown: new Map() };
  for (const artifact of task.artifacts ?? []) {
    const before = kept.parts[artifact.artifactId];
    if (before === undefined || before.length > artifact.parts.length) continue;
    if (!before.every((digest, at) => digest === partDigest(artifact.parts[at]!))) continue;
    if (before.length === artifact.parts.length) earlier.unchanged.push(artifact);
    else if (before.length > 0) (earlier.grown as Map<string, number>).set(artifact.artifactId, before.length);
  }
  return earlier;
}

/** Of `events` read from a task, each file its latest turn appended to as the parts it added (fileAfter), as an appended chunk. */
export function withAddedPartsOnly(events: readonly StreamResponse[], earlier: EarlierFiles | undefined): StreamResponse[] {
  if (earlier === undefined || earlier.grown.size === 0) return [...events];
  return events.flatMap((event) => {
    if (!('artifactUpdate' in event)) return [event];
    const heldBefore = earlier.grown.get(event.artifactUpdate.artifact.artifactId);
    return heldBefore === undefined ? [event] : fileAfter(event, heldBefore);
  });
}

/** One process's notes, bounded fairly (conversation-notes.ts). */
export const createMemoryFilesBeforeTurn = (options: { max: number; idleTtlMs: number }): FilesBeforeTurn =>
  createMemoryNotes<TurnFiles>({ max: options.max, ttlMs: options.idleTtlMs });

const isTurnFiles = (value: unknown): value is TurnFiles =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as TurnFiles).sentMessageId === 'string' &&
  typeof (value as TurnFiles).parts === 'object' &&
  (value as TurnFiles).parts !== null &&
  Object.values((value as TurnFiles).parts).every((digests) => Array.isArray(digests));

/** Shared by every replica, on the conversation store's connection (conversation-languages.ts). */
export const createRedisFilesBeforeTurn = (redis: Redis, options: { prefix: string; ttlMs: number }): FilesBeforeTurn =>
  createRedisNotes(redis, { keyPrefix: `${options.prefix}files-before-turn:`, ttlMs: options.ttlMs, isValue: isTurnFiles });
