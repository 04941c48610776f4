import type { V025Artifact, V025Part, V025SendMessageResult, V025StreamEvent, V025Task, V025TaskStatus } from '../../../protocol/v025/index.js';
import { isDeepStrictEqual } from 'node:util';
import { defined } from '../../../translate/index.js';
import { withFields } from '../../../model/index.js';

/** A reply artifact being folded: its parts are added to in place, since a turn may have thousands of chunks. */
interface Folding {
  artifact: V025Artifact;
  parts: V025Part[];
}

export interface ReplyFold {
  add(event: V025StreamEvent): void;
  /** The folded answer, or undefined when no event came. */
  result(): V025SendMessageResult | undefined;
}

/**
 * Text pieces of the same kind (same part metadata) in a row are one text, as a client that joins chunks reads it:
 * within a piece too, since the agent's store appends a chunk's parts to the artifact it keeps, and tasks/get reads
 * the chunks of a streamed artifact there as one piece of several parts (task-reply.ts).
 */
function appendParts(into: V025Part[], parts: readonly V025Part[]): void {
  for (const part of parts) {
    const last = into.at(-1);
    if (last?.kind === 'text' && part.kind === 'text' && isDeepStrictEqual(last.metadata, part.metadata)) {
      into[into.length - 1] = withFields(last, { text: last.text + part.text });
    } else into.push(part);
  }
}

/** A piece that only appends parts leaves the artifact's other fields as they are (the reply's own chunks do). */
function bringsOnlyParts(artifact: V025Artifact): boolean {
  for (const key of Object.keys(artifact)) {
    if (key !== 'artifactId' && key !== 'parts' && (artifact as Record<string, unknown>)[key] !== undefined) return false;
  }
  return true;
}

const isEmptyObject = (value: object | undefined): boolean => value !== undefined && Object.keys(value).length === 0;

/** Empty text pieces (a closing chunk) say nothing; an artifact left with nothing to say is dropped, unless its metadata speaks (commands). */
function finished({ artifact, parts }: Folding): V025Artifact | undefined {
  const kept = parts.filter((part) => !(part.kind === 'text' && part.text === '' && part.metadata === undefined));
  if (kept.length > 0) return withFields(artifact, { parts: kept });
  return artifact.metadata ? withFields(artifact, { parts: [{ kind: 'text', text: '' }] }) : undefined;
}

/**
 * message/send's answer as the fold of the events message/stream would send for the same turn: the
 * opening task, each artifact with its appended chunks joined (a chunk that does not append replaces
 * the artifact), the last status. So the two modes cannot show different words.
 */
export function createReplyFold(): ReplyFold {
  let opening: V025Task | undefined;
  let message: V025SendMessageResult | undefined;
  let status: V025TaskStatus | undefined;
  let metadata: Record<string, unknown> | undefined;
  const artifacts = new Map<string, Folding>();

  return {
    add(event) {
      switch (event.kind) {
        case 'message':
          message = event;
          return;
        case 'task':
          opening ??= event;
          metadata = event.metadata ? withFields(metadata, event.metadata) : metadata;
          return;
        case 'status-update':
          status = event.status;
          metadata = event.metadata ? withFields(metadata, event.metadata) : metadata;
          return;
        case 'artifact-update': {
          const { artifactId } = event.artifact;
          const existing = artifacts.get(artifactId);
          if (!existing || event.append !== true) {
            const parts: V025Part[] = [];
            appendParts(parts, event.artifact.parts);
            artifacts.set(artifactId, { artifact: event.artifact, parts });
            return;
          }
          appendParts(existing.parts, event.artifact.parts);
          if (bringsOnlyParts(event.artifact) && !isEmptyObject(existing.artifact.metadata)) return;
          const { parts: _parts, ...fields } = event.artifact;
          existing.artifact = defined(
            withFields(existing.artifact, withFields(fields, { metadata: withFields(existing.artifact.metadata, fields.metadata) })),
          );
          if (isEmptyObject(existing.artifact.metadata)) existing.artifact = defined(withFields(existing.artifact, { metadata: undefined }));
          return;
        }
      }
    },
    result() {
      if (message) return message;
      if (!opening) return undefined;
      const folded = [...artifacts.values()].map(finished).filter((artifact) => artifact !== undefined);
      return defined({
        kind: 'task' as const,
        id: opening.id,
        contextId: opening.contextId,
        status: status ?? opening.status,
        artifacts: folded.length > 0 ? folded : undefined,
        metadata,
      });
    },
  };
}
