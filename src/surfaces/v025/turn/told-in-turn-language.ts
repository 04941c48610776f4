import { isContextBusyError } from '../../../core/context-lanes.js';
import { A2AError, GatewayErrorCode, type Message } from '../../../model/index.js';
import { isRecord } from '../../../model/json.js';
import { toldInWords } from '../errors.js';
import { inputRefusal } from '../input.js';
import { refusesNamedFinishedTask } from './finished-task-message.js';
import type { V025FacadeDeps } from '../deps.js';
import { isGatewayFailure } from '../reply/index.js';
import { turnLanguageOf, wordsIn } from '../reply-options.js';
import type { TurnRouting } from '../send.js';

/**
 * A turn's error before its reply began (a plain 0.2.5 error: the agent out of reach, a time-out, a turn
 * still running in the conversation, its client at its cap on turns in flight), told in the turn's language when the gateway gave it ("暂时无法连接上游智能体"
 * for a Chinese turn), the facade's refusal of a message it cannot pass on (input.ts: no words, a non-text part; told in
 * the conversation's language for a message without words), and the agent's refusal of a message to a finished task the
 * caller named (finished-task-message.ts); the agent's other reasons stay as it said them. `params`: the message/send or message/stream params, as the caller sent them.
 */
export async function toldInTurnLanguage(
  error: unknown,
  params: unknown,
  principal: string,
  deps: V025FacadeDeps,
  routing: TurnRouting,
): Promise<unknown> {
  if (!(error instanceof A2AError)) return error;
  const busy = isContextBusyError(error);
  const capped = isTurnCapRefusal(error);
  const gateway = isGatewayFailure(error.message);
  const refusal = inputRefusal(error);
  const finished = !busy && !capped && !gateway && !refusal && (await refusesNamedFinishedTask(error, params, principal, routing.ids));
  if (!busy && !capped && !gateway && !refusal && !finished) return error;
  const message = isRecord(params) && isRecord(params.message) && Array.isArray(params.message.parts) ? (params.message as Message) : undefined;
  const words = wordsIn(await turnLanguageOf(deps, { message, principal }, routing.languages).catch(() => undefined));
  if (busy) return error.toldAs(words.turnInProgress);
  if (refusal) return error.toldAs(refusal(words));
  // The cap's refusal keeps its code and Retry-After (toldAs); an English turn keeps the words that name the cap.
  if (capped) return words.language === 'en' ? error : error.toldAs(words.tooManyTurnsInFlight);
  // A message to a finished task the caller named keeps the agent's code; an English turn its words (task-call-words.ts).
  if (finished) return words.language === 'en' ? error : error.toldAs(words.taskFinished);
  return toldInWords(error, words);
}

/** The refusal of a turn past its client's cap on turns in flight (core/turn-limits.ts), a refusal for now. */
const isTurnCapRefusal = (error: A2AError): boolean => error.code === GatewayErrorCode.TooManyTurnsInFlight && error.retryAfterSeconds !== undefined;
