import { answeredHttpStatus, GATEWAY_FAILURES, type GatewayFailure } from '../../../model/index.js';
import { EN } from './words-en.js';
import { JA } from './words-ja.js';
import { ZH } from './words-zh.js';

/**
 * The facade's own words, the few a Bailian user reads that no agent wrote: how a pipeline step, a
 * candidate and a template are introduced, how to answer a question, the permission prompt's defaults,
 * and why the gateway ended a turn. A person who writes Chinese should not be told "Reply with a number." in
 * English between the agent's Chinese sentences, so each turn picks its language (turn-language.ts).
 */
export type FacadeLanguage = 'en' | 'zh' | 'ja';

export const FACADE_LANGUAGES: readonly FacadeLanguage[] = ['en', 'zh', 'ja'];

export interface FacadeWords {
  readonly language: FacadeLanguage;
  /** A pipeline step's heading: `Step 2/5: Architecture planning`; without its place when iac-code gave none. */
  step(name: string, place: { index: number; total: number } | undefined): string;
  /** A heading of a step run again after a rollback. */
  attempt(heading: string, attempt: number): string;
  /** The line over a candidate's block: `Candidate 1 (name):`, numbered from 1 as the options are. */
  candidate(number: number | undefined, name: string | undefined): string;
  template(url: string): string;
  /** A file named nowhere (no file name, none at the end of its URL): what its line or its block is headed with. */
  file: string;
  /**
   * A file streamed in chunks that stopped before its end (the turn ended first, or its bytes end inside a
   * character): said once after the part shown, in place of a description that would read as a second file.
   */
  fileCutOff(name: string): string;
  /** A file's size in a description of a file the user cannot be shown (`name (image/png, 8 bytes)`). */
  bytes(count: number): string;
  /**
   * iac-code's pipeline steps by id, named as iac-code's own translations name them (its envelopes carry
   * the id alone); an unknown id is shown made readable (`solution_planning` → `Solution planning`).
   */
  stepNames: Readonly<Record<string, string>>;
  /** A step iac-code named by nothing. */
  nextStep: string;
  replyWithChoice: string;
  replyWithNumber: string;
  replyWithNumberOrWords: string;
  /** iac-code refused the last answer and said no more. */
  answerNotUsable: string;
  unnamedOption: string;
  /** The answers a permission prompt takes: `Reply "Allow once" or "Deny".` */
  replyOneOf(labels: readonly string[]): string;
  /** A permission prompt iac-code sent without its question. */
  allowTool(tool: string | undefined): string;
  /** Names of permission options iac-code sent without a label. */
  optionLabels: Readonly<Record<string, string>>;
  /** A prompt asked again because the reply picked none of its options. */
  askedAgain(prompt: string): string;
  /** The upstream's stream stopped while the turn was still running. */
  endedEarly: string;
  /**
   * The agent ended its turn with an error of its own (its JSON-RPC error, a -32603 in its SDK's or its exception's
   * English words, after it said something): that it failed, then `reason`, its words scrubbed (agent-failure.ts).
   */
  agentFailed(reason: string): string;
  /**
   * Where the recovery of a pipeline turn whose stream broke could not tell what iac-code said meanwhile
   * (the task keeps only its latest envelopes: ../turn-pipeline.ts): said at the place of the gap.
   */
  pipelineWordsLost: string;
  /** A turn that failed (or was rejected) without a word of why. */
  failedSilently: string;
  /** A turn the agent canceled without a word (the user's cancel, or its own). */
  canceledSilently: string;
  /** A turn that waits for the user's answer and said nothing at all. */
  waitsSilently: string;
  /** A turn that completed and said nothing at all (no message, no artifact, no device command). */
  completedSilently: string;
  /** A turn that ran tools, said nothing, and waits for the user's next message (iac-code ends every turn so). */
  ranToolsThenWaits(tools: readonly string[]): string;
  /** The same, for tools the agent could not run (the user refused one, or it failed). */
  couldNotRunThenWaits(tools: readonly string[]): string;
  /** A message sent while the conversation's last turn still runs (the user hung up on it, or sent again). */
  turnInProgress: string;
  /**
   * A message refused because its client has as many turns running as it may (`limits.turns-in-flight-per-client`):
   * a refusal for now. An English turn reads the gateway's own words, which also name the cap.
   */
  tooManyTurnsInFlight: string;
  /**
   * A turn the gateway's shutdown (a rollout) cut while the agent goes on with it: not a failure to try again,
   * which would run the turn twice. The user's next message in the conversation shows its rest (../cut-turns.ts).
   */
  turnCutByShutdown: string;
  /** Opens the rest of a cut turn, shown in answer to the user's next message, which is therefore not sent to the agent. */
  cutTurnRest: string;
  /**
   * The same, when that next message is the cut turn's message again (../repeated-message.ts): the rest is its
   * answer, and sending it again would run it twice.
   */
  cutTurnRestOfSameMessage: string;
  /**
   * cutTurnRest when its user read none of the cut turn (a message/send hung up: its one answer never came), so
   * what follows is the turn's reply whole, not its rest.
   */
  cutTurnWhole: string;
  /** cutTurnRestOfSameMessage when its user read none of the cut turn: what follows is its reply whole. */
  cutTurnWholeOfSameMessage: string;
  /**
   * cutTurnRest and the three after it, for a turn cut by the gateway's own bound (`upstream.request-timeout-ms`,
   * `upstream.first-event-timeout-ms`), whose user was told the agent goes on (turnLeftRunning): no connection broke.
   */
  timedOutTurnRest: string;
  timedOutTurnRestOfSameMessage: string;
  timedOutTurnWhole: string;
  timedOutTurnWholeOfSameMessage: string;
  /**
   * A turn the shutdown cut before the agent's first word, its message already sent: the agent may be at work on
   * it, so trying again may run it twice. The task is known and noted: the next message shows its rest.
   */
  turnCutBeforeReply: string;
  /** The same, the task unknown (a new task whose id never came back): the user checks with the agent before sending it again. */
  turnCutUnanswered: string;
  /**
   * A message/send that ran past its bound (`upstream.request-timeout-ms`) while the agent goes on with it
   * (../unwatched-turns.ts): as turnCutByShutdown, the gateway having not restarted. The next message shows its rest.
   */
  turnLeftRunning: string;
  /**
   * turnLeftRunning for an answer the agent took up with its waiting task and said nothing after, past the bound: that
   * task asks what its user read before the answer (../unwatched-turns.ts), so the agent has said nothing yet.
   */
  notAnsweredYet: string;
  /**
   * turnLeftRunning for a new task whose bound passed before the agent's first event: its task has no id yet, so the
   * facade follows the call until that event names it (../unwatched-turns.ts), and the next message shows its reply.
   */
  notStartedYet: string;
  /**
   * cutTurnWhole, timedOutTurnWhole, for a turn whose task still waits as its stream opened with it (an answer the agent
   * took up with its waiting task and said nothing after): its question is what follows, and the agent never went on.
   */
  stillAsks: string;
  /** stillAsks when the message that reads it is the cut turn's again (cutTurnWholeOfSameMessage's case). */
  stillAsksOfSameMessage: string;
  /**
   * `lead` (cutTurnRest, cutTurnWhole, the timedOut ones, stillAsks) followed by the words that say the message that
   * reads it was not passed to the agent: left out when that message only asked to go on (goOn), which these words'
   * own advice suggests sending ("continue"), and which its writer would not want sent again.
   */
  notPassedOn(lead: string): string;
  /**
   * Opens the reply of a turn the facade sent again in a fresh context because the agent refused the conversation's
   * own for good (../gone-task.ts): the agent has none of the earlier turns, nor (iac-code) the files it wrote then.
   */
  startedAfresh: string;
  /** Messages that only ask to see how a turn goes on, as this language writes them (lower case, no end punctuation). */
  goOn: readonly string[];
  /**
   * tasks/cancel refused (-32002): the task is over as its caller was shown it, or the agent would not cancel it. An
   * English conversation reads the words the gateway or the agent gave (../task-call-words.ts).
   */
  taskNotCancelable: string;
  /**
   * A message to a task the agent already finished, which its caller named (a client that keeps a task's id), refused
   * by the agent. An English conversation reads the agent's words (../finished-task-message.ts).
   */
  taskFinished: string;
  /**
   * tasks/cancel of a task whose turn waits on a permission prompt, which a Bailian user was shown as the turn's end:
   * refused, with how to decline instead (a reply the facade sends iac-code as the prompt's deny).
   */
  notCancelableWhilePromptWaits: string;
  /**
   * The facade's refusals of a message it cannot pass on (../input.ts), under their JSON-RPC code and field name as
   * they are: `-32602` `invalidParams(field, description)`; a message with no words (`emptyText`), and none of its
   * images reaching the agent either (`noImageReaches`, said after it); a non-text part under `non-text-parts: error`
   * (`-32005`, textPartsOnly) and `fail-task` (the failed task's reason, textInputOnly: in English, iac-code's own words).
   */
  invalidParams(field: string, description: string): string;
  emptyText: string;
  noImageReaches: string;
  textPartsOnly: string;
  textInputOnly: string;
  /** The agent answered an HTTP error status instead of A2A (a crash's 500, a proxy's 502). */
  upstreamAnswered(status: string): string;
  /** The gateway's own reasons a turn failed (a time-out, an agent it cannot reach, a shutdown). */
  failures: Readonly<Record<GatewayFailure, string>>;
}

const WORDS: Readonly<Record<FacadeLanguage, FacadeWords>> = { en: EN, zh: ZH, ja: JA };

export const facadeWords = (language: FacadeLanguage): FacadeWords => WORDS[language];

/** Which of the gateway's own reasons `reason` is; the detail after its colon (`Upstream agent timed out: no event within 30000 ms`) is the operator's. */
const gatewayFailure = (reason: string): GatewayFailure | undefined =>
  (Object.keys(GATEWAY_FAILURES) as GatewayFailure[]).find(
    (failure) => reason === GATEWAY_FAILURES[failure] || reason.startsWith(`${GATEWAY_FAILURES[failure]}: `),
  );

export const isGatewayFailure = (reason: string): boolean => gatewayFailure(reason) !== undefined || answeredHttpStatus(reason) !== undefined;

/** A reason the gateway gave for a failed turn, in the turn's language when it is one of the gateway's own. */
export function failureReason(words: FacadeWords, reason: string): string {
  if (words.language === 'en') return reason;
  const known = gatewayFailure(reason);
  if (known) return words.failures[known];
  const status = answeredHttpStatus(reason);
  return status ? words.upstreamAnswered(status) : reason;
}

/**
 * Why a turn that had begun failed, as its user reads it: one the gateway's shutdown cut goes on at the agent, so
 * its user is told how to read its end rather than to try again; any other reason as failureReason tells it.
 */
export function failedTurnReason(words: FacadeWords, reason: string): string {
  return gatewayFailure(reason) === 'shuttingDown' ? words.turnCutByShutdown : failureReason(words, reason);
}

/** Every name the facade gives a permission option, in any language: a reply may use any of them. */
export function optionNames(optionId: string): string[] {
  return FACADE_LANGUAGES.flatMap((language) => WORDS[language].optionLabels[optionId] ?? []);
}

/** Every message that only asks to go on, in any language: a user may write "continue" in a Chinese conversation. */
const GO_ON: ReadonlySet<string> = new Set(FACADE_LANGUAGES.flatMap((language) => WORDS[language].goOn));

/** Whether `text` only asks to see how a turn goes on ("continue", "继续。"), as a user would type it. */
export function asksToGoOn(text: string): boolean {
  const bare = text
    .normalize('NFKC')
    .trim()
    .toLowerCase()
    .replace(/[\s.!?~…。！？、，,]+$/u, '');
  return GO_ON.has(bare);
}

/** A step's name as this language shows it: iac-code's own where known, else its id made readable. */
export function stepName(words: FacadeWords, id: string): string {
  const known = words.stepNames[id];
  if (known) return known;
  const spaced = id.replace(/[_-]+/g, ' ').trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
