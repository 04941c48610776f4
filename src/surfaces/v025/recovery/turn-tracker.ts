import {
  withFields,
  eventTaskRef,
  eventTaskState,
  isInterruptedState,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../../../model/index.js';
import { asyncIteratorOf, SteppedStage, type Step } from '../../../core/stepped-stages.js';
import { joinText } from '../../../translate/index.js';
import { asksAnew } from '../reply/held-question.js';
import type { TurnSoFar } from './turn-rest.js';
import { isWordsLostEvent, pipelineSequences } from './turn-pipeline.js';
import { isStartedAfreshTold } from '../turn/started-afresh.js';

/**
 * Waiting for the caller (input-required, auth-required): the only opening a follow-up's agent goes on from.
 * Not merely "neither working nor over": a task in no known state (UNSPECIFIED, a 0.3 agent's state the
 * gateway does not know) says nothing of waiting, and holding it would read the task to the bound after a break.
 */
const waiting = (state: TaskState): boolean => isInterruptedState(state);

/** What the recovery of a broken stream reads of the turn, and notes of what it relays (turn-recovery.ts). */
export interface ShownTurn {
  readonly taskId: string | undefined;
  readonly state: TaskState | undefined;
  readonly heldStatus: TaskStatus | undefined;
  note(event: StreamResponse): void;
  soFar(): TurnSoFar;
}

/**
 * The parts of each file the caller was shown before, copied: chunks appended later are appended to the copy.
 * None when no file was (a turn's notes of files are made at its first file: most turns show none).
 */
const filesShownBefore = (turn: Pick<TurnSoFar, 'shownFiles'>): Map<string, Part[] | undefined> | undefined =>
  turn.shownFiles?.size ? new Map([...turn.shownFiles].map(([id, parts]) => [id, parts && [...parts]])) : undefined;

/** The turn so far as a run of events makes it: what was relayed, or what of that was written to the caller. */
class NotesSoFar {
  taskId: string | undefined;
  state: TaskState | undefined;
  heldStatus: TaskStatus | undefined;
  /** The facade's words that the turn started afresh (started-afresh.ts) are among the events: no word of the agent's. */
  startedAfreshTold = false;
  private heldShown = false;
  private noted = 0;
  // The messages themselves: their text is only needed if the stream breaks, so none is joined per event.
  private readonly passed: Message[] = [];
  /** Each file once, however many chunks of it came; made at the first. */
  private passedFiles: Set<string> | undefined;
  /** The parts of each file as the caller holds them (undefined: appended to a file the turn did not begin). */
  private shownFiles: Map<string, Part[] | undefined> | undefined;
  private lastStatus: TaskStatusUpdateEvent | undefined;
  private pipelineSequence: number | undefined;

  constructor(private readonly turn: Omit<TurnSoFar, 'passed'> & Partial<Pick<TurnSoFar, 'passed'>>) {
    this.shownFiles = filesShownBefore(turn);
  }

  note(event: StreamResponse): void {
    // The facade's own mark of lost words is no update of the agent's: the next snapshot is compared with the agent's last.
    if (isWordsLostEvent(event)) return;
    if (isStartedAfreshTold(event)) {
      this.startedAfreshTold = true;
      return;
    }
    const opensWaiting = this.noted++ === 0 && 'task' in event && waiting(event.task.status.state);
    this.heldStatus = opensWaiting && this.turn.sent.taskId === event.task.id ? event.task.status : undefined;
    // Not the question its user just answered, which that frame does not show (reply/held-question.ts).
    this.heldShown ||= asksAnew(this.heldStatus, this.turn.previous);
    this.taskId = eventTaskRef(event).taskId || this.taskId;
    this.state = eventTaskState(event) ?? this.state;
    if ('statusUpdate' in event) {
      this.lastStatus = event.statusUpdate;
      const sequences = pipelineSequences(event.statusUpdate.metadata);
      if (sequences.length > 0) this.pipelineSequence = Math.max(this.pipelineSequence ?? -Infinity, ...sequences);
      const message = event.statusUpdate.status.message;
      if (message?.role === 'ROLE_AGENT') this.passed.push(message);
    }
    if ('artifactUpdate' in event) {
      const { artifact, append } = event.artifactUpdate;
      (this.passedFiles ??= new Set()).add(artifact.artifactId);
      const files = (this.shownFiles ??= new Map<string, Part[] | undefined>());
      const known = files.get(artifact.artifactId);
      // Appended in place: a long file comes in thousands of chunks.
      if (append !== true) files.set(artifact.artifactId, [...artifact.parts]);
      else if (known) known.push(...artifact.parts);
      else files.set(artifact.artifactId, undefined);
    }
  }

  soFar(): TurnSoFar {
    return withFields(this.turn, {
      passed: [...(this.turn.passed ?? []), ...this.passed.map((message) => joinText(message.parts))],
      passedFiles: [...new Set([...(this.turn.passedFiles ?? []), ...(this.passedFiles ?? [])])],
      ...(this.shownFiles ? { shownFiles: new Map([...this.shownFiles].map(([id, parts]) => [id, parts && [...parts]])) } : {}),
      ...(this.lastStatus ? { lastStatus: this.lastStatus } : {}),
      ...(this.heldStatus ? { heldStatus: this.heldStatus } : {}),
      ...(this.heldShown ? { heldShown: true } : {}),
      ...(this.pipelineSequence !== undefined ? { pipelineSequence: this.pipelineSequence } : {}),
    });
  }
}

/** What a turn's caller was shown, for the note a cut or a hang-up takes (cut-turns.ts). */
export type ShownView = Pick<ShownTurn, 'taskId' | 'state' | 'heldStatus' | 'soFar'> & { readonly startedAfreshTold: boolean };

/**
 * What the caller was shown of a turn, noted event by event as it is relayed (the broken stream's events,
 * then those of its recovery), so that whatever reads the rest next knows where it starts. One per turn,
 * made as it begins (begun-turn.ts): each event is noted once, by what relays it, and the recovery and the note
 * of a turn a shutdown cut (cut-turns.ts) read the same notes.
 *
 * On a stream (shownAsWritten), relayed is not shown: an event is relayed ahead of the socket (the SSE channel
 * asks for the next frame while one is written) and may come after its caller hung up, before the gateway saw
 * it. There `shown()` is what the writer acknowledged (written: the frame's mark, the relayed count as it was made),
 * while the recovery goes on from what was relayed.
 */
export class TurnTracker implements ShownTurn {
  private relayed: NotesSoFar;
  /** What the writer acknowledged, on a stream; undefined: what was relayed counts as shown (a blocking answer). */
  private written: NotesSoFar | undefined;
  /** Events relayed and not yet acknowledged, the first of them the `unwrittenFrom`th relayed. */
  private unwritten: StreamResponse[] = [];
  private unwrittenFrom = 0;
  private relayedCount = 0;

  /** `turn`: what the turn's caller was shown before these events, if anything (a turn a shutdown cut: cut-turns.ts). */
  constructor(private readonly turn: Omit<TurnSoFar, 'passed'> & Partial<Pick<TurnSoFar, 'passed'>>) {
    this.relayed = new NotesSoFar(turn);
  }

  get taskId(): string | undefined {
    return this.relayed.taskId;
  }

  get state(): TaskState | undefined {
    return this.relayed.state;
  }

  /**
   * The status of the waiting task a follow-up's stream opened with, while nothing else came: an a2a-js 1.x
   * agent opens the answer to its question with the task as it took it up, still waiting, and goes on.
   */
  get heldStatus(): TaskStatus | undefined {
    return this.relayed.heldStatus;
  }

  note(event: StreamResponse): void {
    this.relayed.note(event);
    this.relayedCount++;
    if (this.written) this.unwritten.push(event);
  }

  /** From now on (before the turn's first event) only what the writer acknowledges counts as shown. */
  shownAsWritten(): void {
    this.written ??= new NotesSoFar(this.turn);
  }

  /** How many events were relayed: a frame made now shows them, its mark. */
  get mark(): number {
    return this.relayedCount;
  }

  /** The frame made at `mark` was written while its caller was there: the events relayed before it were shown. */
  wrote(mark: number): void {
    const written = this.written;
    const count = Math.min(mark - this.unwrittenFrom, this.unwritten.length);
    if (!written || count <= 0) return;
    for (let i = 0; i < count; i++) written.note(this.unwritten[i]!);
    this.unwritten.splice(0, count);
    this.unwrittenFrom += count;
  }

  /** What its caller was shown: what the writer acknowledged on a stream, else what was relayed. */
  shown(): ShownView {
    return this.written ?? this.relayed;
  }

  /**
   * A new attempt of the turn begins (gone-task.ts sends the caller's words again, in a new task): what the
   * refused one noted was never shown.
   */
  restart(): void {
    this.relayed = new NotesSoFar(this.turn);
    if (this.written) this.written = new NotesSoFar(this.turn);
    this.unwritten = [];
    this.unwrittenFrom = this.relayedCount;
  }

  /** The turn as relayed so far (where a recovery goes on from). */
  soFar(): TurnSoFar {
    return this.relayed.soFar();
  }

  /**
   * The turn as its caller stood before these events, none of them read (a message/send whose caller hung up: its
   * one answer never came), the agent's own state kept: a follow-up's task still waiting as its stream opened.
   */
  unread(): TurnSoFar {
    return withFields(this.turn, { passed: [...(this.turn.passed ?? [])], ...(this.heldStatus ? { heldStatus: this.heldStatus } : {}) });
  }

  /**
   * The notes as one attempt of the turn reads them: with the message it sent the agent (its images in) and
   * the task it went on, if it went on one (after gone-task.ts, a new task), where its caller's turn is the
   * message as the facade routed it and the conversation's task before it.
   */
  sentAs(attempt: { sent: Message; previous?: Task }): ShownTurn {
    return new AttemptNotes(this, attempt);
  }
}

class AttemptNotes implements ShownTurn {
  constructor(
    private readonly tracker: TurnTracker,
    private readonly attempt: { sent: Message; previous?: Task },
  ) {}

  get taskId(): string | undefined {
    return this.tracker.taskId;
  }

  get state(): TaskState | undefined {
    return this.tracker.state;
  }

  get heldStatus(): TaskStatus | undefined {
    return this.tracker.heldStatus;
  }

  note(event: StreamResponse): void {
    this.tracker.note(event);
  }

  soFar(): TurnSoFar {
    const { previous: _callers, ...shown } = this.tracker.soFar();
    return withFields(shown, this.attempt);
  }
}

/** Events that no recovery relays (a blocking answer, a re-prompt, a finished cut turn's rest), noted as they pass. */
export function noted(
  events: AsyncIterable<StreamResponse> | Iterable<StreamResponse>,
  tracker: Pick<ShownTurn, 'note'>,
): AsyncIterableIterator<StreamResponse> {
  return new Noted(events, tracker);
}

/** A stage (core/stepped-stages.ts): read through with the layers below it. */
class Noted extends SteppedStage<StreamResponse, StreamResponse> {
  constructor(
    private readonly events: AsyncIterable<StreamResponse> | Iterable<StreamResponse>,
    private readonly tracker: Pick<ShownTurn, 'note'>,
  ) {
    super();
  }

  protected open(): AsyncIterator<StreamResponse> {
    return asyncIteratorOf(this.events);
  }

  protected step(result: IteratorResult<StreamResponse>): Step<StreamResponse> {
    if (result.done) return { items: [], end: true };
    this.tracker.note(result.value);
    return { items: [result.value] };
  }
}
