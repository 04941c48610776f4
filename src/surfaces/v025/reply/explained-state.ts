import { withFields, type TaskStatus } from '../../../model/index.js';
import { sanitizeUpstreamText } from '../../../upstream/upstream-errors.js';
import { isAnswerState } from './rules.js';

/**
 * A status whose message explains its state rather than answers (a failure, a rejection, a cancellation)
 * holds an error's text: iac-code fails a turn with `str(exception)`, tracebacks, workspace paths and echoed
 * credentials included. It is scrubbed as an agent's error message is (upstream-errors.ts), wherever the
 * caller reads it: in the reply, or on the status.
 */
export function withExplanationScrubbed(status: TaskStatus): TaskStatus {
  const { message } = status;
  if (!message || isAnswerState(status.state)) return status;
  const parts = message.parts.map((part) => (part.text === undefined ? part : withFields(part, { text: sanitizeUpstreamText(part.text) })));
  return withFields(status, { message: withFields(message, { parts }) });
}
