import { randomUUID } from 'node:crypto';
import type { Message, Task } from '../../model/index.js';
import { systemClock } from '../../translate/index.js';
import { isIacCodeCard } from '../../upstream/iac-code/preferred-language.js';
import type { V025FacadeDeps } from './deps.js';
import type { ReplyOptions, ShownStates } from './reply/index.js';
import { shownStatesOf } from './reply/shown-state.js';
import { facadeWords, type FacadeLanguage, type FacadeWords } from './reply/words.js';
import type { ConversationLanguages } from './notes/conversation-languages.js';
import { replyArtifactIdOf } from './reply-artifact-id.js';
import { turnLanguage } from './turn/turn-language.js';

/** What one turn's reply depends on besides the facade's settings. */
export interface TurnFacts {
  /** The task the turn continues: its earlier artifacts are not this turn's answer. */
  previous?: Task;
  /** The id the caller knows the task by, when it is not the upstream's. */
  taskId?: string;
  /** The facade's own words in the turn's language (wordsIn); absent: the operator's, else English. */
  words?: FacadeWords;
  /** The id of the message the turn sends the agent: its reply artifact's id is made from it (reply-artifact-id.ts). */
  sentMessageId?: string;
}

/**
 * The language of a turn: the operator's, or (`auto`) the caller's (turn-language.ts); undefined when
 * nothing says (the facade's words are then English). A language the caller's message said is
 * remembered for its conversation.
 */
export async function turnLanguageOf(
  deps: V025FacadeDeps,
  turn: { message?: Message; previous?: Task | undefined; principal: string },
  languages: ConversationLanguages,
): Promise<FacadeLanguage | undefined> {
  const { language } = deps.options.bailian;
  if (language !== 'auto') return language;
  const contextId = turn.message?.contextId ?? turn.previous?.contextId;
  const chosen = turnLanguage(turn.message, { previous: turn.previous, remembered: await languages.of(turn.principal, contextId) });
  if (chosen.said && chosen.language) await languages.note(turn.principal, contextId, chosen.language);
  return chosen.language;
}

/** The facade's own words in a turn's language, English when it has none. */
export const wordsIn = (language: FacadeLanguage | undefined): FacadeWords => facadeWords(language ?? 'en');

/**
 * The states the agent behind the facade is shown in now (shownStatesOf): read per turn, as the agent's card may
 * change. No card yet (the agent was down at start): shown as iac-code, the agent the facade is for, until one is read.
 */
export function shownStates(deps: V025FacadeDeps): ShownStates {
  const card = deps.cards.current()?.card;
  return shownStatesOf(deps.profile, deps.options.bailian.mappings, card === undefined || isIacCodeCard(card));
}

/**
 * The reply reducer's options for one turn: the profile's shape, the operator's overrides, the turn's facts.
 */
export function replyOptions(deps: V025FacadeDeps, turn: TurnFacts = {}): ReplyOptions {
  const { bailian } = deps.options;
  const { options } = deps.profile;
  const { previous, taskId, sentMessageId } = turn;
  const shown = shownStates(deps);
  // Built as one literal, its optional fields set after it: spreading `{ earlierArtifacts }` and the like into it
  // copied each (a builtin call per spread, once per turn).
  const reply: ReplyOptions = {
    profile: shown.profile,
    decisionState: shown.decisionState,
    upstreamMetadata: bailian['upstream-metadata'],
    renderParts: bailian['render-parts'] ?? options.renderParts,
    replyArtifacts: options.replyArtifacts,
    inlineMaxBytes: bailian['inline-max-bytes'],
    deviceCommandsKey: bailian['extension-metadata-key'],
    words: turn.words ?? wordsIn(bailian.language === 'auto' ? undefined : bailian.language),
    followsUp: previous !== undefined,
    newId: randomUUID,
    now: systemClock,
  };
  if (previous?.artifacts) reply.earlierArtifacts = previous.artifacts;
  if (previous) reply.previous = previous;
  if (taskId) reply.taskId = taskId;
  if (sentMessageId) reply.replyArtifactId = (replyTaskId: string) => replyArtifactIdOf(replyTaskId, sentMessageId);
  return reply;
}
