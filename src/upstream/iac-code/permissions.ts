import { withFields, type Part } from '../../model/index.js';
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
  /** iac-code's question; absent when it sent none (the facade then asks in its own words). */
  prompt?: string;
  toolName?: string;
  /** The language iac-code wrote the prompt and its labels in (`en`, `zh`, ...), when it says. */
  language?: string;
  /** An option without a label is named by whoever shows it. */
  options: { id: string; label?: string }[];
}

/** The permission prompt a task or status update is waiting on, if any. */
export function pendingPermission(metadata: JsonObject | undefined): PermissionRequest | undefined {
  const input = pendingInput(metadata, 'permission');
  if (!input) return undefined;
  const requestTaskId = textField(input.requestTaskId);
  const inputId = textField(input.inputId);
  const toolUseId = textField(input.toolUseId);
  if (!requestTaskId || !inputId || !toolUseId) return undefined;
  const options = (Array.isArray(input.options) ? input.options : []).filter(isRecord).flatMap((option) => {
    const id = textField(option.id);
    const label = textField(option.label);
    return id ? [label ? { id, label } : { id }] : [];
  });
  const prompt = textField(input.prompt) ?? textField(input.title);
  const toolName = textField(input.toolName);
  const language = textField(input.language);
  return withFields(
    { requestTaskId, inputId, toolUseId, options: options.length > 0 ? options : DEFAULT_OPTIONS },
    withFields(prompt ? { prompt } : {}, withFields(toolName ? { toolName } : {}, language ? { language } : {})),
  );
}

const DEFAULT_OPTIONS = [{ id: 'allow_once' }, { id: 'deny' }];

/** Words people answer a yes/no question with, beyond the options' own ids and labels. */
const YES = new Set(['yes', 'y', 'ok', 'okay', 'allow', 'approve', 'sure', '是', '好', '好的', '允许', '同意', '可以', '确认', 'はい', '許可']);
const NO = new Set(['no', 'n', 'deny', 'reject', 'cancel', '否', '不', '不要', '拒绝', '取消', 'いいえ', '拒否']);

const normalise = (value: string): string =>
  value
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, ' ')
    .replace(/[.!。！]+$/, '');

/**
 * The option a reply picks: an option's id or label, another name the one who asked gave it (`namesOf`),
 * or a plain yes/no; undefined when it picks none.
 */
export function chosenOption(
  request: PermissionRequest,
  reply: string,
  namesOf: (optionId: string) => readonly string[] = () => [],
): string | undefined {
  const said = normalise(reply);
  const named = (option: { id: string; label?: string }): boolean =>
    [option.id, option.label ?? option.id, ...namesOf(option.id)].some((name) => normalise(name) === said);
  const exact = request.options.find(named);
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
