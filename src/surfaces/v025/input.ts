import { randomUUID } from 'node:crypto';
import type { BailianConfig } from '../../config/bailian-schema.js';
import { withFields, A2AError, parseSendMessageRequest, type SendMessageRequest, type Task } from '../../model/index.js';
import { joinText, nestExtensionMetadata } from '../../translate/index.js';

/** The answer to a non-text message under `non-text-parts: fail-task` (iac-code's own wording). */
export const TEXT_ONLY_MESSAGE = 'A2A server currently accepts text input only.';

/** One turn as the facade will run it: the 1.0 request, or a task that failed without reaching the upstream. */
export type TurnInput = { request: SendMessageRequest; rejected?: undefined } | { request: SendMessageRequest; rejected: Task };

function textOnlyFailure(request: SendMessageRequest): Task {
  const id = randomUUID();
  return {
    id,
    contextId: request.message.contextId ?? randomUUID(),
    status: {
      state: 'TASK_STATE_FAILED',
      message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: TEXT_ONLY_MESSAGE }] },
      timestamp: new Date().toISOString(),
    },
  };
}

/**
 * The facade's rules for an inbound message, after translation to 1.0: the 1.0 model's own checks
 * (the id rule on contextId/taskId, -32602), the `non-text-parts` policy, no empty text, and Bailian's
 * extension metadata moved under `extension-metadata-key` for the upstream.
 */
export function turnInput(v1Params: unknown, bailian: BailianConfig): TurnInput {
  const request = parseSendMessageRequest(v1Params);
  const { message } = request;
  const nonText = message.parts.some((part) => part.text === undefined);
  if (nonText && bailian['non-text-parts'] === 'error') {
    throw A2AError.contentTypeNotSupported('Only text parts are supported (kind: "text")');
  }
  if (nonText && bailian['non-text-parts'] === 'fail-task') return { request, rejected: textOnlyFailure(request) };
  if (!nonText && joinText(message.parts).trim() === '') {
    const description = 'the message text is empty';
    throw A2AError.invalidParams(`Invalid params: message.parts: ${description}`, [{ field: 'message.parts', description }]);
  }
  const metadata = nestExtensionMetadata(message.metadata, bailian['extension-metadata-key']);
  if (metadata === message.metadata) return { request };
  return { request: withFields(request, { message: withFields(message, { metadata }) }) };
}
