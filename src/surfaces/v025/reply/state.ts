import type { Artifact, Part, Task, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent } from '../../../model/index.js';
import type { MappingProfile } from '../../../mappings/index.js';
import type { V025TaskState } from '../../../protocol/v025/index.js';
import type { Clock } from '../../../translate/index.js';
import { NO_CODE, type CodeScan } from './code-spans.js';
import type { OpenFile } from './file-stream.js';
import { noPieces, type ReplyPieces } from './pieces.js';
import { NOTHING_HELD, type PipelineHold } from './pipeline-text.js';
import type { FacadeWords } from './words.js';

/** How the facade shapes one turn for its 0.2.5 caller. */
export interface ReplyOptions {
  profile: MappingProfile;
  /** The state a turn that waits on its user's decision (a permission prompt, a candidate choice) ends in (shown-state.ts). */
  decisionState: V025TaskState;
  /** 'pass': metadata-only upstream updates (tool, usage, thinking) become working status-updates; 'drop': they vanish. */
  upstreamMetadata: 'pass' | 'drop';
  /** 'text': every part is shown as text (Bailian renders text/plain only); 'native': file and data parts stay what they are. */
  renderParts: 'text' | 'native';
  /**
   * 'single': the whole reply is ONE artifact per turn (Bailian); 'own': the agent's status text is the
   * facade's reply artifact and the upstream's artifacts keep their own identity (plain 0.2.5).
   */
  replyArtifacts: 'single' | 'own';
  /** Largest file shown inline when parts are rendered as text. */
  inlineMaxBytes: number;
  /** Bailian device commands are gathered from `metadata.commands` and `metadata[key].commands`. */
  deviceCommandsKey?: string;
  /** The id the caller knows the task by, when it is not the upstream's (a task id the caller chose). */
  taskId?: string;
  /** The task's artifacts before this turn: a Task snapshot's older artifacts are not this turn's answer. */
  earlierArtifacts?: readonly Artifact[];
  /**
   * Whether the turn's message went to a task the agent already had (an answer to its question): a Task that opens
   * the stream waiting for input may be that task as the agent took the answer up, and is held (reducer.ts, onTask).
   * `false`: a new task, whose opening Task waiting for input is the agent's whole answer. Absent: not known, held.
   */
  followsUp?: boolean;
  /** The task as its caller was shown it before this turn: a held Task that asks its question again says nothing new (held-question.ts). */
  previous?: Task;
  /** The facade's own words, in the turn's language. */
  words: FacadeWords;
  /**
   * The id of the turn's reply artifact in the task the caller is shown, made from that task and the turn, so that
   * tasks/get shows the reply under the id the turn did (reply-artifact-id.ts); absent: a new one (newId).
   */
  replyArtifactId?: (taskId: string) => string;
  newId: () => string;
  now: Clock;
}

/** An event held back behind an open artifact (open-artifact.ts). */
export type HeldEvent = { readonly statusUpdate: TaskStatusUpdateEvent } | { readonly artifactUpdate: TaskArtifactUpdateEvent };

/** What a finished segment was the text of: agent messages, artifacts, or both (the same text twice). */
export type SegmentSource = 'message' | 'artifact' | 'both';

/** Whether a segment key (`a:<id>`, `m:<id>`, `p:<id>`) is an artifact's. */
export const isArtifactKey = (key: string | undefined): boolean => key?.startsWith('a:') === true;
/** The key of an upstream artifact's text (`a:<id>`), as segments, held artifacts and the artifacts shown are known by. */
export const artifactKey = (artifactId: string): string => `a:${artifactId}`;

/**
 * Everything the reducer remembers of a turn. "Shown" is the text of the reply artifact so far;
 * a segment is the text of one agent message or one artifact, the unit the repeat rules compare.
 */
export interface ReplyState {
  readonly started: boolean;
  readonly done: boolean;
  readonly taskId: string;
  readonly contextId: string;
  readonly lastStatus: TaskStatus;
  readonly shown: string;
  /**
   * `shown` measured as it grows, so no rule has to scan (and flatten) the whole reply per event: how
   * many of its characters are not white space, and its last character ('' while nothing is shown).
   */
  readonly shownDense: number;
  readonly shownLast: string;
  /**
   * The last characters of `shown` (shown-tail.ts, TAIL_LENGTH): the rules that read the reply's end per message
   * read them here, since reading `shown`, a string built by appending, copies all of it.
   */
  readonly shownTail: string;
  /** Whether `shown` stands inside Markdown code, where running text always carries on (code-spans.ts). */
  readonly code: CodeScan;
  /**
   * Finished segments, trimmed. Only ever added to, and shared by the states of one turn: the reducer
   * is folded in order, never replayed from an older state, so copying the set per segment would only
   * make long turns quadratic.
   */
  readonly segments: ReadonlyMap<string, SegmentSource>;
  /**
   * The finished segments since the latest message's segment began (that one's too, once finished): what a
   * closing message may repeat as one earlier segment (rules.ts, repeatsShown). Words said after a segment
   * make it no longer what the user read last, and the agent that says it again then means it again. A
   * fresh set each message segment that says words (not a file or a data part alone: rules.ts, sinceWords);
   * otherwise added to, like `segments`.
   */
  readonly sinceMessage: ReadonlySet<string>;
  /** Where each segment's text starts in `shown` (pieces.ts). */
  readonly pieces: ReplyPieces;
  /** Which message (`m:<id>`) or artifact (`a:<id>`) the current segment is the text of. */
  readonly segmentKey: string | undefined;
  readonly segmentText: string;
  /**
   * The text of the agent's latest status message that said any: a message grown in place says it again, whole,
   * then more (restatement.ts), also when its first version was too short to tell and the segment holds it twice.
   */
  readonly messageText: string;
  /** Something that was not text (a tool call, an artifact) came since the last text: the next text starts a new line. */
  readonly breakPending: boolean;
  /** The current segment is the agent's running text (its working messages), which the next may carry on. */
  readonly segmentFlows: boolean;
  /**
   * The reply's current line is a heading or a quote that a whole message opened on a line the facade started
   * for it (line-shapes.ts, isBlockLine): the next message starts a line too (running-text.ts, separatorBefore).
   */
  readonly blockLine: boolean;
  readonly replyArtifactId: string | undefined;
  readonly replyChunks: number;
  /**
   * The parts of every upstream artifact the turn showed, by `a:<id>`, as a reader who applies each update
   * holds them (a whole one replaces, an appended chunk adds): an artifact sent again, as a closing Task
   * does, shows only what it changes. Shared by the states of one turn, like `segments`.
   */
  readonly artifactParts: ReadonlyMap<string, readonly Part[]>;
  /** The tools the agent ran this turn, and those it could not, by name (iac-code's tool trace), for a turn that says nothing else. */
  readonly toolsRun: readonly string[];
  readonly toolsFailed: readonly string[];
  /** Bailian device commands seen so far, once each; they travel on the turn's last artifact. */
  readonly commands: readonly unknown[];
  /**
   * A Task that opened the stream in a state that ends the caller's turn: the whole answer, or the task as
   * the agent took up the message before going on with it. Which one, the next event (or the end) tells.
   */
  readonly heldTask?: Task;
  /** iac-code pipeline mode: the text and files of candidates still writing, shown when each ends (pipeline-text.ts). */
  readonly pipelineHeld: PipelineHold;
  /** The upstream artifact (`a:<id>`) the reply stands in, whose last chunk has not come yet (open-artifact.ts). */
  readonly openArtifact?: string;
  /**
   * The upstream artifact shown last whose last chunk has not come (open-artifact.ts): another artifact's
   * updates wait for it. `known`: it said it is streamed; else a first piece that said nothing of its last
   * chunk, which the agent's next event tells. `tail`: the end of its text so far (a line or two), which tells
   * whether the reply stands right under a heading it wrote, without reading the whole reply.
   */
  readonly unfinishedArtifact?: { readonly key: string; readonly known: boolean; readonly tail: string };
  /**
   * What waits for the open artifact, in the order it came: working messages that came while the reply stood
   * inside its text, other artifacts' updates while it streams, and what came after those (open-artifact.ts).
   */
  readonly held: readonly HeldEvent[];
  /** The characters of their text, which bound the hold with their count. */
  readonly heldChars: number;
  /**
   * While held events are relayed, those still to come after the one relayed now (open-artifact.ts,
   * showHeld): they are already here, so they tell what a live event could not (an artifact's next chunk).
   */
  readonly queued: readonly HeldEvent[];
  /**
   * The block the facade closed in the text of `key` (`opener`: the line that opened it) before other text
   * (held progress, a question): the next text under `key` (the artifact's next chunk) goes on with that code,
   * so the block is opened again under the same line first (reply-artifact.ts, closeCode).
   */
  readonly closedCode?: { readonly key: string; readonly opener: string };
  /** A file an artifact streams in chunks of raw bytes, whose last chunk has not come yet (file-stream.ts). */
  readonly openFile?: OpenFile;
}

/** Every key of a state, its optional ones too (undefined there): a copy (withState) then never adds one. */
const everyKey = (state: { [K in keyof Required<ReplyState>]: ReplyState[K] }): ReplyState => state;

/** A fresh state for one turn (its segment set is its own). */
export const initialReplyState = (): ReplyState =>
  everyKey({
    started: false,
    done: false,
    // No task yet, and never shown so: start() (turn-bounds.ts) names the task before the turn's first event goes out,
    // and a failure before then is the call's JSON-RPC error (turn.ts replyEvents), not a task without an id.
    taskId: '',
    contextId: '',
    lastStatus: { state: 'TASK_STATE_SUBMITTED' },
    shown: '',
    shownDense: 0,
    shownLast: '',
    shownTail: '',
    code: NO_CODE,
    segments: new Map(),
    sinceMessage: new Set(),
    pieces: noPieces(),
    segmentKey: undefined,
    segmentText: '',
    messageText: '',
    breakPending: false,
    segmentFlows: false,
    blockLine: false,
    replyArtifactId: undefined,
    replyChunks: 0,
    artifactParts: new Map(),
    toolsRun: [],
    toolsFailed: [],
    commands: [],
    pipelineHeld: NOTHING_HELD,
    held: [],
    heldChars: 0,
    queued: [],
    heldTask: undefined,
    openArtifact: undefined,
    unfinishedArtifact: undefined,
    closedCode: undefined,
    openFile: undefined,
  });

/**
 * The state with `fields` changed, as one copy of its hidden class: withFields builds a copy key by key (some
 * 10,000 instructions for the 30-odd keys of a state, and a reply step makes several). Every state holds every
 * key (initialReplyState), so `fields` adds none and each copy keeps the class (model/with-fields.ts tells why
 * one that adds a key would not).
 */
export function withState(state: ReplyState, fields: Partial<ReplyState>): ReplyState {
  return Object.assign(draftOf(state), fields);
}

/** A state a step still writes: its own copy, whose fields it sets before handing it on as the next state. */
export type DraftState = { -readonly [K in keyof Required<ReplyState>]: ReplyState[K] };

/**
 * A copy of `state` for a step to set fields of in place (reply-artifact.ts showText, once per chunk shown): a store
 * to a known key of the copy is far cheaper than `Object.assign`, which sets each key through the generic lookup
 * (some 16,000 instructions per message/send in showText alone: bench/README.md, forty-fifth pass).
 */
export function draftOf(state: ReplyState): DraftState {
  return {
    started: state.started,
    done: state.done,
    taskId: state.taskId,
    contextId: state.contextId,
    lastStatus: state.lastStatus,
    shown: state.shown,
    shownDense: state.shownDense,
    shownLast: state.shownLast,
    shownTail: state.shownTail,
    code: state.code,
    segments: state.segments,
    sinceMessage: state.sinceMessage,
    pieces: state.pieces,
    segmentKey: state.segmentKey,
    segmentText: state.segmentText,
    messageText: state.messageText,
    breakPending: state.breakPending,
    segmentFlows: state.segmentFlows,
    blockLine: state.blockLine,
    replyArtifactId: state.replyArtifactId,
    replyChunks: state.replyChunks,
    artifactParts: state.artifactParts,
    toolsRun: state.toolsRun,
    toolsFailed: state.toolsFailed,
    commands: state.commands,
    pipelineHeld: state.pipelineHeld,
    held: state.held,
    heldChars: state.heldChars,
    queued: state.queued,
    heldTask: state.heldTask,
    openArtifact: state.openArtifact,
    unfinishedArtifact: state.unfinishedArtifact,
    closedCode: state.closedCode,
    openFile: state.openFile,
  };
}
