import { isDeepStrictEqual } from 'node:util';
import type { Artifact, Part, StreamResponse, Task, TaskStatusUpdateEvent } from '../../model/index.js';
import { latestStatus, sameUpdate } from './turn-snapshot.js';
import { agentMessages, restCursor, said, sameMessage, type TurnSoFar } from './turn-rest.js';

/**
 * The live events of a resubscription that repeat its snapshot. An agent may send live what its snapshot
 * already holds: iac-code its latest update, when it came as the subscription began; the a2a-js 1.x SDK
 * every event the agent sent between the moment the subscription listens to the task and the moment it
 * loads the task to send it (a store that is slow to load, an agent that streams tokens meanwhile). Those
 * come first, in the order the agent sent them, so the repeats are the live events up to the first one the
 * snapshot does not hold: a status whose message the snapshot has past what the caller read before it (a
 * message is known by its id and parts; iac-code keeps one id for a whole turn, so a chunk it says again
 * later is a repeat only among the snapshot's own, and its latest update sent again is its last one), the
 * snapshot's latest update, a chunk of a file the gap showed (not one the stream carried) that the snapshot
 * has at that place.
 */
export class SnapshotEcho {
  private readonly messages;
  private readonly latest: TaskStatusUpdateEvent;
  private readonly files: Map<string, readonly Part[]>;
  /** How far each repeat went: the last message matched, the parts of each file matched. */
  private messageAt: number;
  private readonly fileAt = new Map<string, number>();
  private over = false;

  /** `turn`: what the caller was shown before the snapshot. */
  constructor(snapshot: Task, turn: TurnSoFar) {
    this.messages = agentMessages(said(snapshot));
    this.messageAt = restCursor(snapshot, turn).shownMessages - 1;
    this.latest = latestStatus(snapshot);
    // Only the files the gap showed (whole): one the stream carried before the break the gap leaves out
    // (turn-snapshot.ts), so what the agent sent of it as the subscription listened is seen only live.
    const shown = (artifact: Artifact): boolean => !turn.passedFiles?.includes(artifact.artifactId);
    this.files = new Map((snapshot.artifacts ?? []).filter(shown).map((artifact) => [artifact.artifactId, artifact.parts]));
  }

  /** Whether `event`, the next live event, repeats the snapshot; once one does not, no later one is taken for a repeat. */
  repeats(event: StreamResponse): boolean {
    if (this.over) return false;
    const repeat = this.holds(event);
    this.over = !repeat;
    return repeat;
  }

  private holds(event: StreamResponse): boolean {
    if ('statusUpdate' in event) {
      const message = event.statusUpdate.status.message;
      if (message === undefined || message.role !== 'ROLE_AGENT') return sameUpdate(event.statusUpdate, this.latest);
      // The latest update whole (iac-code sends it again) is the snapshot's last message, not an earlier chunk
      // of the same id and text: matched there, a new chunk that says a missed one's words again is not taken for it.
      const last = this.messages.length - 1;
      const isLatest = last > this.messageAt && sameUpdate(event.statusUpdate, this.latest) && sameMessage(this.messages[last], message);
      // An earlier message only by an id it alone has (a2a-js gives each message its own): iac-code keeps one id
      // for a whole turn, where a new chunk may say a missed one's words again ("，").
      const unique = this.messages.filter((known) => known.messageId === message.messageId).length === 1;
      const earlier = unique ? this.messages.findIndex((known, index) => index > this.messageAt && sameMessage(known, message)) : -1;
      const at = isLatest ? last : earlier;
      if (at < 0) return false;
      this.messageAt = at;
      return true;
    }
    if ('artifactUpdate' in event) {
      const { artifact, append } = event.artifactUpdate;
      const parts = this.files.get(artifact.artifactId);
      const from = append === true ? (this.fileAt.get(artifact.artifactId) ?? 0) : 0;
      const to = from + artifact.parts.length;
      if (!parts || to > parts.length || !isDeepStrictEqual(parts.slice(from, to), artifact.parts)) return false;
      this.fileAt.set(artifact.artifactId, to);
      return true;
    }
    return false;
  }
}
