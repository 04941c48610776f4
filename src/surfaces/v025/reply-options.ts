import { randomUUID } from 'node:crypto';
import type { Message, Task } from '../../model/index.js';
import { systemClock } from '../../translate/index.js';
import type { V025FacadeDeps } from './deps.js';
import type { ReplyOptions } from './reply/index.js';
import { facadeWords, type FacadeWords } from './reply/words.js';
import { turnLanguage } from './turn-language.js';

/** What one turn's reply depends on besides the facade's settings. */
export interface TurnFacts {
  /** The caller's message: its language is the language of the facade's own words. */
  message?: Message;
  /** The task the turn continues: its earlier artifacts are not this turn's answer, its history says the conversation's language. */
  previous?: Task;
  /** The id the caller knows the task by, when it is not the upstream's. */
  taskId?: string;
}

/** The facade's own words for a turn: in the operator's language, or (`auto`) in the caller's. */
export function turnWords(deps: V025FacadeDeps, turn: TurnFacts): FacadeWords {
  const { language } = deps.options.bailian;
  return facadeWords(language === 'auto' ? turnLanguage(turn.message, turn.previous, 'en') : language);
}

/** The reply reducer's options for one turn: the profile's shape, the operator's overrides, the turn's facts. */
export function replyOptions(deps: V025FacadeDeps, turn: TurnFacts = {}): ReplyOptions {
  const { bailian } = deps.options;
  const { options } = deps.profile;
  const earlierArtifacts = turn.previous?.artifacts;
  return {
    profile: deps.profile,
    upstreamMetadata: bailian['upstream-metadata'],
    renderParts: bailian['render-parts'] ?? options.renderParts,
    replyArtifacts: options.replyArtifacts,
    inlineMaxBytes: bailian['inline-max-bytes'],
    deviceCommandsKey: bailian['extension-metadata-key'],
    words: turnWords(deps, turn),
    ...(earlierArtifacts ? { earlierArtifacts } : {}),
    ...(turn.taskId ? { taskId: turn.taskId } : {}),
    newId: randomUUID,
    now: systemClock,
  };
}
