/**
 * What a 0.2.5 caller is shown of a turn: the reply reducer (reducer.ts) with its rules (rules.ts),
 * part rendering (render-parts.ts), and the one code path message/stream and message/send share
 * (turn.ts, fold.ts).
 */
export { createReplyFold, type ReplyFold } from './fold.js';
export { closeReply, failReply, reduceReply, type ReplyStep } from './reducer.js';
export { endsCallerTurn } from './turn-bounds.js';
export { renderPart, renderParts, type RenderOptions } from './render-parts.js';
export { asksDecision, decisionStateOf, shownState, type ShownStates } from './shown-state.js';
export { initialReplyState, type ReplyOptions, type ReplyState } from './state.js';
export { taskTurnEvents } from './task-events.js';
export { createTurnReply, replyEvents, type TurnReply } from './turn.js';
export { asksAnew, repeatsShownQuestion } from './held-question.js';
export { asksToGoOn, facadeWords, failureReason, isGatewayFailure, type FacadeLanguage, type FacadeWords } from './words.js';
