import { isRecord, type JsonObject } from '../../model/json.js';

/**
 * What iac-code puts in `metadata.iac_code` of its status updates that a reader of its turns must
 * understand (docs/iac-code.md, "A turn on the wire").
 */

export const iacCodeOf = (metadata: JsonObject | undefined): JsonObject | undefined => {
  const value = metadata?.iac_code;
  return isRecord(value) ? value : undefined;
};

/**
 * The question a turn waits on, in `metadata.iac_code.input`, when it is of `kind` (`permission`, and in
 * pipeline mode `ask_user_question` or `candidate_selection`).
 */
export function pendingInput(metadata: JsonObject | undefined, kind: string): JsonObject | undefined {
  const input = iacCodeOf(metadata)?.input;
  return isRecord(input) && input.kind === kind ? input : undefined;
}

/**
 * The WORKING update iac-code sends at the end of a turn, marked `assistantFinal`: it repeats the
 * text of the last assistant message only (the text after the last tool call), not the whole reply.
 */
export function isAssistantFinal(metadata: JsonObject | undefined): boolean {
  const final = iacCodeOf(metadata)?.assistantFinal;
  return final !== undefined && final !== false;
}

/**
 * A tool-trace update (`metadata.iac_code.tool`). iac-code gives every text chunk of a turn the same
 * messageId, before and after tool calls, so a tool call is what separates two of its messages.
 */
export function isToolEvent(metadata: JsonObject | undefined): boolean {
  return iacCodeOf(metadata)?.tool !== undefined;
}

/**
 * The update iac-code ends a turn with when its model's provider failed (`metadata.iac_code.error`:
 * `{retryable, errorId?}`): FAILED, or INPUT_REQUIRED asking to retry, the error's text under the id of the
 * turn's text chunks.
 */
export function isProviderError(metadata: JsonObject | undefined): boolean {
  return isRecord(iacCodeOf(metadata)?.error);
}

/** How a tool call ended, by the tool's name: a tool-trace update `completed` or `failed` (refused permission included). */
export function toolOutcome(metadata: JsonObject | undefined): { name: string; ran: boolean } | undefined {
  const tool = iacCodeOf(metadata)?.tool;
  if (!isRecord(tool) || typeof tool.name !== 'string' || tool.name === '') return undefined;
  if (tool.status === 'completed') return { name: tool.name, ran: true };
  return tool.status === 'failed' ? { name: tool.name, ran: false } : undefined;
}
