import { isDeepStrictEqual } from 'node:util';
import type { Part, StreamResponse, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../../../model/index.js';
import { latestStatus, sameUpdate } from './turn-snapshot.js';
import { agentMessages, partsShown, restCursor, said, sameMessage, type TurnSoFar } from './turn-rest.js';

/**
 * The live events of a resubscription that repeat its snapshot. An agent may send live what its snapshot
 * already holds: iac-code its latest update without a message (a tool call's, usage), when it came as the
 * subscription began; the a2a-js 1.x SDK every event the agent sent between the moment the subscription
 * listens to the task and the moment it loads the task to send it (a store that is slow to load, an agent
 * that streams tokens meanwhile). Those come first, in the order the agent sent them, and are the last the
 * snapshot holds: so the repeats are the live events up to the first one the snapshot does not hold: a status
 * whose message the snapshot has past what the caller read before it (a message is known by its id, one it
 * alone has, and its parts; iac-code keeps one id for a whole turn, so a chunk of its text is never taken for
 * a repeat: identical chunks in a row are its words, a run of dots or a table's pipes), the snapshot's latest
 * update without a message, chunks of a file that end where the snapshot's file ends.
 *
 * A file's chunks have no id: the SDK appends an appended chunk's parts to the stored file, so the chunks sent
 * as the subscription listened are the file's last parts in the snapshot, past those the caller held before
 * the break (a file the stream carried in part: the gap showed the rest, turn-snapshot.ts). A chunk is a
 * repeat only once the chunks so far make up the end of the file (the end of a file begun before the
 * subscription, sent as it listened), and is held back until then: one that matches a part inside the file
 * (a "}" line again, a blank line) is new when the next event does not go on to the end, and is relayed then,
 * before it. An agent may send the file again whole after its chunks (append: false, lastChunk), which the
 * store keeps in their place, cut otherwise: a chunk that says a piece of that whole is held back too, and
 * is a repeat when the whole comes next. What is held back when the subscription breaks is left out: the
 * next snapshot (or the task) holds it if the agent sent it, past what the caller was shown.
 */
interface EchoFile {
  parts: readonly Part[];
  /** Where a repeat of the file's chunks may start: past the parts the caller held before the snapshot's gap. */
  from: number;
  /** Where the next chunk must start for the chunks so far to be repeats (several places while one repeats a part). */
  at?: number[];
  /** What the file says, and the same three as `from` and `at` in it (the agent may have sent it again whole since, cut otherwise). */
  text: string;
  textFrom: number;
  textAt?: number[];
}

/** What parts say, however they are cut: a file sent in chunks, then whole in one part, says the same. */
const contentOf = (parts: readonly Part[]): string =>
  parts.map((part) => part.text ?? part.url ?? part.raw ?? JSON.stringify(part.data ?? null)).join('');

/** Every place from `from` on where `text` has `piece`. */
function placesOf(text: string, piece: string, from: number): number[] {
  const places: number[] = [];
  for (let at = text.indexOf(piece, from); at >= 0; at = text.indexOf(piece, at + 1)) places.push(at);
  return places;
}

type ChunkMatch = 'end' | 'inside' | 'new' | 'empty';

export class SnapshotEcho {
  private readonly messages;
  private readonly latest: TaskStatusUpdateEvent;
  private readonly files: Map<string, EchoFile>;
  /** How far the repeats of the messages went: the last message matched. */
  private messageAt: number;
  /** Live events held back, in order: chunks that may repeat the inside of a file (`file`), and empty ones after them. */
  private held: Array<{ event: StreamResponse; file?: string }> = [];
  private over = false;

  /** `turn`: what the caller was shown before the snapshot. */
  constructor(snapshot: Task, turn: TurnSoFar) {
    this.messages = agentMessages(said(snapshot));
    this.messageAt = restCursor(snapshot, turn).shownMessages - 1;
    this.latest = latestStatus(snapshot);
    this.files = new Map();
    for (const artifact of snapshot.artifacts ?? []) {
      // A file whose start the stream did not carry: the gap left it out, what the agent sends of it is seen only live.
      const from = partsShown(artifact, turn);
      if (from === undefined) continue;
      const text = contentOf(artifact.parts);
      const shown = turn.passedFiles?.includes(artifact.artifactId) ? contentOf(turn.shownFiles?.get(artifact.artifactId) ?? []) : '';
      this.files.set(artifact.artifactId, { parts: artifact.parts, from, text, textFrom: text.startsWith(shown) ? shown.length : 0 });
    }
  }

  /**
   * The live events to relay now, for `event`, the next one: none while it repeats the snapshot (or may:
   * held back), else it, after what was held back before it. Once one is not a repeat, every later one is relayed.
   */
  pass(event: StreamResponse): StreamResponse[] {
    if (this.over) return [event];
    if ('artifactUpdate' in event) {
      const { artifactId } = event.artifactUpdate.artifact;
      const match = this.chunk(event.artifactUpdate);
      if (match === 'inside') {
        this.held.push({ event, file: artifactId });
        return [];
      }
      if (match === 'end') {
        this.held = this.held.filter((entry) => entry.file !== artifactId);
        return this.releasedHead();
      }
      // A chunk with no parts (a lone `lastChunk`) leaves nothing in the snapshot to know it by, and shows nothing.
      if (match === 'empty') {
        this.held.push({ event });
        return this.releasedHead();
      }
    } else if (this.holds(event)) return [];
    this.over = true;
    const released = [...this.held.map((entry) => entry.event), event];
    this.held = [];
    return released;
  }

  /** What was held back up to the first chunk that may still be a repeat. */
  private releasedHead(): StreamResponse[] {
    const firstHeld = this.held.findIndex((entry) => entry.file !== undefined);
    const released = this.held.splice(0, firstHeld < 0 ? this.held.length : firstHeld);
    return released.map((entry) => entry.event);
  }

  private holds(event: StreamResponse): boolean {
    if (!('statusUpdate' in event)) return false;
    const message = event.statusUpdate.status.message;
    if (message === undefined || message.role !== 'ROLE_AGENT') return sameUpdate(event.statusUpdate, this.latest);
    // A message the snapshot holds only by an id it alone has (a2a-js gives each message its own). iac-code keeps
    // one id for a whole turn, and its chunks carry no timestamp: one with the words of a chunk the snapshot holds,
    // its latest included, is told from it by nothing but its place, and it comes after the snapshot (iac-code's
    // SDK, a2a-python, loads the task before it listens to the turn's events): a new chunk, the next "." of a run
    // of dots or "|" of a table, or a missed one's words said again ("，"), never to be lost.
    const unique = this.messages.filter((known) => known.messageId === message.messageId).length === 1;
    const at = unique ? this.messages.findIndex((known, index) => index > this.messageAt && sameMessage(known, message)) : -1;
    if (at < 0) return false;
    this.messageAt = at;
    return true;
  }

  /**
   * Where a file's chunk falls in the snapshot's file: a chunk not appended at its start; an appended one where
   * the chunks before it ended, or, the first, at every place past what the caller held where its parts are. The
   * end of the file by its parts is the end of a repeat. By what it says only, it may be one too, held back: the
   * agent may have sent the file again whole since (the store holds it as that whole), which comes next then.
   */
  private chunk(update: TaskArtifactUpdateEvent): ChunkMatch {
    const { artifact, append } = update;
    const size = artifact.parts.length;
    if (size === 0) return 'empty';
    const file = this.files.get(artifact.artifactId);
    if (!file) return 'new';
    const end = file.parts.length;
    const whole = append !== true;
    const starts = whole ? [0] : (file.at ?? Array.from({ length: Math.max(0, end - size - file.from + 1) }, (_, i) => file.from + i));
    const next = starts.filter((at) => at + size <= end && isDeepStrictEqual(file.parts.slice(at, at + size), artifact.parts)).map((at) => at + size);
    const said = contentOf(artifact.parts);
    const textStarts = said === '' ? [] : whole ? [0] : (file.textAt ?? placesOf(file.text, said, file.textFrom));
    const nextText = textStarts.filter((at) => file.text.startsWith(said, at)).map((at) => at + said.length);
    if (next.includes(end)) {
      Object.assign(file, { at: [end], textAt: [file.text.length] });
      return 'end';
    }
    Object.assign(file, { at: next, textAt: nextText });
    return next.length > 0 || nextText.length > 0 ? 'inside' : 'new';
  }
}
