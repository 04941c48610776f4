import type { PermissionRequest } from '../../../upstream/iac-code/permissions.js';
import type { FacadeWords } from './words.js';

/**
 * An option as the prompt names it: iac-code's label, unless iac-code wrote it in another language than
 * the turn's and the facade has a name for it (a reply with either name is understood); else the id.
 */
function optionLabel(option: PermissionRequest['options'][number], words: FacadeWords, foreign: boolean): string {
  const own = words.optionLabels[option.id];
  return (foreign && own) || (option.label ?? own ?? option.id);
}

/** iac-code's permission prompt as a person reads it, with the answers the facade understands. */
export function permissionPromptText(request: PermissionRequest, words: FacadeWords): string {
  const foreign = request.language !== undefined && request.language.split(/[-_]/)[0]?.toLowerCase() !== words.language;
  const labels = request.options.map((option) => optionLabel(option, words, foreign));
  return `${request.prompt ?? words.allowTool(request.toolName)}\n${words.replyOneOf(labels)}`;
}
