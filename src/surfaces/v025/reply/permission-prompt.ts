import type { PermissionRequest } from '../../../upstream/iac-code/permissions.js';
import type { FacadeWords } from './words.js';

/** An option as the prompt names it: iac-code's label, else the facade's name for its id, else the id. */
const optionLabel = (option: PermissionRequest['options'][number], words: FacadeWords): string =>
  option.label ?? words.optionLabels[option.id] ?? option.id;

/** iac-code's permission prompt as a person reads it, with the answers the facade understands. */
export function permissionPromptText(request: PermissionRequest, words: FacadeWords): string {
  const labels = request.options.map((option) => optionLabel(option, words));
  return `${request.prompt ?? words.allowTool(request.toolName)}\n${words.replyOneOf(labels)}`;
}
