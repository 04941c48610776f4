import type { Part } from '../../model/index.js';
import { isRecord, type JsonObject } from '../../model/json.js';
import { pendingInput } from './events.js';
import { textField } from './fields.js';

/**
 * iac-code's interactive permission prompt (docs/iac-code.md, "Permission prompts"): before a tool
 * runs, the turn pauses in INPUT_REQUIRED with the question in `metadata.iac_code.input`, and the
 * answer must be one `application/json` data part naming the prompt and the decision.
 */
export interface PermissionRequest {
  requestTaskId: string;
  inputId: string;
  toolUseId: string;
  prompt: string;
  options: { id: string; label: string }[];
}

/** The permission prompt a task or status update is waiting on, if any. */
export function pendingPermission(metadata: JsonObject | undefined): PermissionRequest | undefined {
  const input = pendingInput(metadata, 'permission');
  if (!input) return undefined;
  const requestTaskId = textField(input.requestTaskId);
  const inputId = textField(input.inputId);
  const toolUseId = textField(input.toolUseId);
  if (!requestTaskId || !inputId || !toolUseId) return undefined;
  const options = (Array.isArray(input.options) ? input.options : [])
    .filter(isRecord)
    .flatMap((option) => (textField(option.id) ? [{ id: option.id as string, label: textField(option.label) ?? (option.id as string) }] : []));
  const prompt = textField(input.prompt) ?? textField(input.title) ?? `Allow ${textField(input.toolName) ?? 'the tool'} to run?`;
  return { requestTaskId, inputId, toolUseId, prompt, options: options.length > 0 ? options : DEFAULT_OPTIONS };
}

const DEFAULT_OPTIONS = [
  { id: 'allow_once', label: 'Allow once' },
  { id: 'deny', label: 'Deny' },
];

/** The prompt as a person reads it, with the answers the gateway understands. */
export function permissionPromptText(request: PermissionRequest): string {
  return `${request.prompt}\nReply ${request.options.map((option) => `"${option.label}"`).join(' or ')}.`;
}

/** Words people answer a yes/no question with, beyond the options' own ids and labels. */
const YES = new Set(['yes', 'y', 'ok', 'okay', 'allow', 'approve', 'sure', '是', '好', '好的', '允许', '同意', '可以', '确认']);
const NO = new Set(['no', 'n', 'deny', 'reject', 'cancel', '否', '不', '不要', '拒绝', '取消']);

const normalise = (value: string): string =>
  value
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, ' ')
    .replace(/[.!。！]+$/, '');

/** The option a reply picks: an option's id or label, or a plain yes/no; undefined when it picks none. */
export function chosenOption(request: PermissionRequest, reply: string): string | undefined {
  const said = normalise(reply);
  const exact = request.options.find((option) => normalise(option.id) === said || normalise(option.label) === said);
  if (exact) return exact.id;
  const allow = request.options.find((option) => option.id.startsWith('allow'));
  const deny = request.options.find((option) => option.id === 'deny');
  if (YES.has(said)) return allow?.id;
  if (NO.has(said)) return deny?.id;
  return undefined;
}

/** The data part iac-code reads as the answer (exactly these six keys). */
export function permissionAnswer(request: PermissionRequest, decision: string): Part {
  return {
    data: {
      schemaVersion: 1,
      kind: 'permission',
      requestTaskId: request.requestTaskId,
      inputId: request.inputId,
      toolUseId: request.toolUseId,
      decision,
    },
    mediaType: 'application/json',
  };
}
