import { isRecord } from '../model/json.js';
import type { SseFrame } from '../surfaces/shared/sse-frames.js';
import { endedWithCause, failedTurnCause, textOf } from './facade-answer-log.js';

/** What a facade stream's caller was last shown: the task state, and for a failed or rejected turn why (its `cause`). */
export interface FacadeStreamShown {
  state?: string;
  cause?: string;
}

/**
 * How many of the last artifact's frames are kept to tell why a turn failed: its words come in chunks, and the
 * cause keeps only their end (facade-answer-log.ts), which a few chunks hold.
 */
const KEPT_CHUNKS = 8;

const resultOf = (data: string | undefined): Record<string, unknown> | undefined => {
  if (data === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(data);
    return isRecord(parsed) && isRecord(parsed.result) ? parsed.result : undefined;
  } catch {
    return undefined;
  }
};

const artifactOf = (result: Record<string, unknown> | undefined): Record<string, unknown> | undefined =>
  isRecord(result?.artifact) ? result.artifact : undefined;

/** The text of the last artifact's kept chunks (those of the last frame's artifact, from its last non-appending one). */
function lastArtifactText(chunks: readonly string[]): string | undefined {
  const artifacts = chunks.map((data) => artifactOf(resultOf(data)));
  const lastId = artifacts[artifacts.length - 1]?.artifactId;
  let text = '';
  for (let index = artifacts.length - 1; index >= 0; index -= 1) {
    const artifact = artifacts[index];
    if (artifact?.artifactId !== lastId) break;
    text = (textOf(artifact?.parts) ?? '') + text;
    if (resultOf(chunks[index])?.append !== true) break;
  }
  return text === '' ? undefined : text;
}

/**
 * Follows the frames a facade `message/stream` writes (as `message/send`'s answer is read, facade-answer-log.ts):
 * the last state they show and, once it is `failed` or `rejected`, what its user read of why: the last status
 * message's words, or under the Bailian profile (whose users read artifacts) the last artifact's. Frames are
 * only kept (the last status update's, the last artifact's last few), and parsed once at the end of a failed turn.
 */
export function facadeStreamShown(): { frame(frame: SseFrame): void; shown(): FacadeStreamShown } {
  let state: string | undefined;
  let status: string | undefined;
  const chunks: string[] = [];
  return {
    frame(frame) {
      const shows = frame.shows;
      if (shows === undefined) return;
      if (shows.kind === 'artifact-update') {
        chunks.push(frame.data);
        if (chunks.length > KEPT_CHUNKS) chunks.shift();
        return;
      }
      if (shows.state === undefined) return;
      state = shows.state;
      status = frame.data;
    },
    shown() {
      if (state === undefined) return {};
      if (!endedWithCause(state)) return { state };
      const message = resultOf(status)?.status;
      const said = (isRecord(message) && isRecord(message.message) ? textOf(message.message.parts) : undefined) ?? lastArtifactText(chunks);
      const cause = failedTurnCause(state, said);
      return cause === undefined ? { state } : { state, cause };
    },
  };
}
