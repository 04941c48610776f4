/**
 * A permission answer into a fake iac-code turn that waits on its prompt (fake-iac-code-running-turns.ts),
 * checked as iac-code checks it, and the status it records as it takes it.
 */
import { applyEvent, type Json } from './fake-iac-code-data.js';
import { invalidParams } from './fake-iac-code-rpc.js';

/** The prompt a turn waits on: the ids an answer must name, and how the turn hears the decision. */
export interface WaitingPrompt {
  inputId: string;
  toolUseId: string;
  answer(decision: string): void;
}

const PERMISSION_KEYS = ['schemaVersion', 'kind', 'requestTaskId', 'inputId', 'toolUseId', 'decision'];

/** The decision of a message answering `waiting` in `task`, validated as iac-code does (its -32602 otherwise). */
export function permissionDecision(message: Json, task: Json, waiting: WaitingPrompt): string {
  const parts = (message.parts as Json[] | undefined) ?? [];
  const data = parts[0]?.data as Json | undefined;
  if (parts.length !== 1 || !data || parts[0]?.mediaType !== 'application/json') {
    throw invalidParams('Permission responses must contain exactly one application/json DataPart.');
  }
  const keys = Object.keys(data).sort();
  if (keys.length !== PERMISSION_KEYS.length || !PERMISSION_KEYS.every((key) => keys.includes(key))) {
    throw invalidParams('Permission response payload fields do not match schemaVersion 1.');
  }
  if (data.decision !== 'allow_once' && data.decision !== 'deny') throw invalidParams('Permission decision must be allow_once or deny.');
  if (data.requestTaskId !== task.id) throw invalidParams('Permission response taskId does not match requestTaskId.');
  // iac-code's newer servers also check the message's contextId (read in its source; no capture has it).
  if (typeof message.contextId !== 'string') throw invalidParams('Permission response correlation fields are required.');
  if (message.contextId !== task.contextId) throw invalidParams('input_response_mismatch: permission context does not match.');
  if (data.inputId !== waiting.inputId || data.toolUseId !== waiting.toolUseId) {
    throw invalidParams('input_response_mismatch: permission correlation does not match.');
  }
  return data.decision;
}

/**
 * The status iac-code sends first on the answering stream, folded into the task: the SDK saves each event
 * of the turn before it is sent, so the task works again once the answer is taken.
 */
export function answerTaken(task: Json, waiting: WaitingPrompt, decision: string): Json {
  const received = { kind: 'permission', inputId: waiting.inputId, decision, toolUseId: waiting.toolUseId };
  const taken: Json = {
    statusUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      status: { state: 'TASK_STATE_WORKING' },
      metadata: { iac_code: { inputReceived: received } },
    },
  };
  applyEvent(task, taken);
  return taken;
}
