import type { Context } from 'hono';
import { isRecord } from '../model/json.js';
import { sanitizeUpstreamText } from '../scrub-text.js';
import type { GatewayEnv, RequestLogFields } from '../surfaces/shared/env.js';
import { noteLog, noteLogFields } from '../surfaces/shared/log-fields.js';
import { withoutUrlCredentials } from '../url-credentials.js';
import type { FacadeAnswer } from './facade-events.js';

/**
 * How much of a failed turn's last words the log line keeps: their end, where the facade says why the turn
 * failed after whatever the agent said before (a report of its own may run to thousands of characters).
 */
const MAX_CAUSE_CHARS = 500;

const STATES_WITH_A_CAUSE: ReadonlySet<string> = new Set(['failed', 'rejected']);

/** Whether a facade turn shown `state` was failed or rejected: its log line says why, at warn. */
export const endedWithCause = (state: string): boolean => STATES_WITH_A_CAUSE.has(state);

/** The text of a 0.2.5 message's or artifact's text parts. */
export function textOf(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return undefined;
  const text = parts.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return text === '' ? undefined : text;
}

/**
 * What a failed 0.2.5 Task tells its user of why: its status message, or under the Bailian profile (whose users
 * read artifacts, not the status) its last artifact's text, where the facade puts the agent's error.
 */
function failureTextOf(answer: unknown): string | undefined {
  const task = isRecord(answer) && isRecord(answer.result) ? answer.result : undefined;
  if (!task) return undefined;
  const status = isRecord(task.status) ? task.status : undefined;
  const said = isRecord(status?.message) ? textOf(status.message.parts) : undefined;
  if (said !== undefined) return said;
  const artifacts = Array.isArray(task.artifacts) ? (task.artifacts as unknown[]) : [];
  const last = artifacts[artifacts.length - 1];
  return isRecord(last) ? textOf(last.parts) : undefined;
}

/** The end of `text`, at most MAX_CAUSE_CHARS, not cutting a surrogate pair in two. */
function tailOf(text: string): string {
  if (text.length <= MAX_CAUSE_CHARS) return text;
  let start = text.length - MAX_CAUSE_CHARS;
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start += 1;
  return `…${text.slice(start)}`;
}

/**
 * The `cause` a facade turn shown `state` is logged with, `said` being what its user read of why: for a turn the
 * agent failed or rejected, those words (their end, scrubbed as every upstream text is), else that it ended so;
 * undefined for any other state. A `message/send`'s request line and a `message/stream`'s end line say it alike.
 */
export function failedTurnCause(state: string, said: string | undefined): string | undefined {
  if (!endedWithCause(state)) return undefined;
  return said === undefined ? `the agent's turn ended ${state}` : tailOf(withoutUrlCredentials(sanitizeUpstreamText(said)));
}

/**
 * Notes on the request line of a facade `message/send` the state its Task was answered with (0.2.5's words:
 * `failed`), as a 1.0 line carries its answer's; when the gateway, not the agent, ended it so, why
 * (`stateReason`: shutdown, caller_left). A turn the agent failed or rejected also notes what its user read of
 * why, scrubbed as every upstream text is, as its `cause`: the line is written at warn (log.ts), though the
 * answer is an HTTP 200 JSON-RPC result. Only such an answer's body is read again (a copy), so a turn that
 * did not fail costs nothing more.
 */
export async function noteFacadeAnswer(c: Context<GatewayEnv>, answer: FacadeAnswer, response: Response): Promise<void> {
  if (answer.reason !== undefined) return noteLog(c, { state: answer.state, stateReason: answer.reason });
  if (!endedWithCause(answer.state)) return noteLog(c, { state: answer.state });
  const said = failureTextOf(
    await response
      .clone()
      .json()
      .catch(() => undefined),
  );
  noteLog(c, { state: answer.state, cause: failedTurnCause(answer.state, said) });
}

/** A 0.2.5 task status as a facade frame shows it (V025TaskStatus). */
interface ShownStatus {
  readonly state: string;
  readonly message?: { readonly parts: unknown };
}

/**
 * Notes on the request fields of a facade `message/stream` (`fields`, its request line's), at its end, the state its user was last shown (`shown`:
 * the last status its frames carried; none, nothing) and, for a turn shown failed or rejected, what they read of
 * why as its `cause`, as noteFacadeAnswer does for `message/send`: that status's message, else the reply's words
 * (`reply`, asked only then: under the Bailian profile the reason is the end of the reply artifact, which its users
 * read). The `stream ended` line reads them (stream-end-log.ts); the request line was written when the headers went out.
 */
export function noteFacadeStreamShown(fields: RequestLogFields | undefined, shown: ShownStatus | undefined, reply: () => string): void {
  if (shown === undefined) return;
  const { state } = shown;
  if (!endedWithCause(state)) return noteLogFields(fields, { state });
  const said = textOf(shown.message?.parts) ?? (reply() || undefined);
  noteLogFields(fields, { state, cause: failedTurnCause(state, said) });
}
