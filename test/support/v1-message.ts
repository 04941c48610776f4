let counter = 0;

/** A 1.0 user message as JSON: one text part, plus any field given (contextId, taskId, metadata...). */
export const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: `m-${++counter}`,
  role: 'ROLE_USER' as const,
  parts: [{ text }],
  ...extra,
});

/** SendMessage params carrying `userMessage(text, extra)`. */
export const sendMessageParams = (text: string, extra: Record<string, unknown> = {}) => ({ message: userMessage(text, extra) });
