import type { AgentPort, CallContext } from '../../core/agent-port.js';
import { overlay } from '../../core/overlay.js';
import { isRecord } from '../../model/json.js';
import { withFields, type AgentCard, type SendMessageRequest } from '../../model/index.js';
import { settingsMetadata, withSettingsEdited } from './turn-settings.js';

/**
 * iac-code writes what it says itself (its permission prompt and option names, its error texts) in the
 * language a turn asks for in `metadata.iac_code.preferredLanguage`, English otherwise (read in its
 * source). A surface that knows the language its caller writes in (the 0.2.5 facade: `ctx.language`)
 * has it asked for, in the message's metadata and in the request's own, which iac-code reads instead
 * whenever it has any; a turn that asks for a language itself keeps its own. Below `caller-settings`:
 * this is the gateway's setting, not a caller's.
 */
export function tellingLanguage(inner: AgentPort, isIacCode: () => boolean): AgentPort {
  const told = (request: SendMessageRequest, ctx: CallContext): SendMessageRequest =>
    ctx.language === undefined || !isIacCode() ? request : withLanguage(request, ctx.language);
  return overlay(inner, {
    sendMessage: (request, ctx) => inner.sendMessage(told(request, ctx), ctx),
    sendStreamingMessage: (request, ctx) => inner.sendStreamingMessage(told(request, ctx), ctx),
  });
}

function withLanguage(request: SendMessageRequest, language: string): SendMessageRequest {
  // The metadata iac-code reads already names one: the caller's choice.
  if (asksForLanguage(settingsMetadata(request))) return request;
  return withSettingsEdited(request, (metadata) => askingFor(metadata, language));
}

function asksForLanguage(metadata: Record<string, unknown> | undefined): boolean {
  const iacCode = metadata?.iac_code;
  return isRecord(iacCode) && (typeof iacCode.preferredLanguage === 'string' || typeof iacCode.preferred_language === 'string');
}

function askingFor(metadata: Record<string, unknown> | undefined, language: string): Record<string, unknown> {
  const iacCode = isRecord(metadata?.iac_code) ? metadata.iac_code : undefined;
  return withFields(metadata, { iac_code: withFields(iacCode, { preferredLanguage: language }) });
}

/** An iac-code's card: one of its extensions is iac-code's own (`urn:iac-code:…`). */
export const isIacCodeCard = (card: AgentCard | undefined): boolean =>
  card?.capabilities.extensions?.some((extension) => extension.uri.startsWith('urn:iac-code:')) === true;
