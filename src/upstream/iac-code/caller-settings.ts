import type { AgentPort, CallContext } from '../../core/agent-port.js';
import { overlay } from '../../core/overlay.js';
import { isRecord } from '../../model/json.js';
import { withFields, type SendMessageRequest } from '../../model/index.js';
import { noteSettingsRemoved } from '../../observability/settings-removed.js';
import { throttledWarnings, type WarningLogger } from '../../throttled-warnings.js';
import { withSettingsEdited } from './turn-settings.js';

export interface CallerSettingsOptions {
  /** Told (at most once a minute) the names of the keys taken out, never their values, and whose: a client may expect its model to be used. */
  logger?: WarningLogger;
}

/**
 * Only the per-turn settings the operator lets callers choose (`upstream.caller-settings`). iac-code takes
 * a turn's model, an LLM key and headers, Alibaba Cloud credentials, its run mode and its folder from
 * `metadata.iac_code` of whoever sent the turn, with no switch of its own to refuse them; behind a
 * gateway that is every holder of a gateway credential. Every other key of `iac_code` is taken out of
 * the message's metadata and out of the request's own (which iac-code reads instead whenever it has
 * any), before the turn goes on. The rest of the metadata is the caller's and stays.
 */
export function onlyAllowedSettings(inner: AgentPort, allowed: readonly string[], options: CallerSettingsOptions = {}): AgentPort {
  const keep = new Set(allowed);
  const warn = throttledWarnings(options.logger);
  const settle = (request: SendMessageRequest, ctx: CallContext): SendMessageRequest => {
    const removed = new Set<string>();
    const settled = withAllowedSettings(request, keep, removed);
    if (removed.size > 0) {
      noteSettingsRemoved(ctx.surface ?? 'unknown');
      const caller = withFields({ surface: ctx.surface }, ctx.client === undefined ? {} : { client: ctx.client });
      warn(withFields(caller, { removed: [...removed] }), 'per-turn settings upstream.caller-settings does not allow were taken out');
    }
    return settled;
  };
  return overlay(inner, {
    sendMessage: (request, ctx) => inner.sendMessage(settle(request, ctx), ctx),
    sendStreamingMessage: (request, ctx) => inner.sendStreamingMessage(settle(request, ctx), ctx),
  });
}

/** The request with only the `keep` settings wherever iac-code reads them (the others' names into `removed`); the same object when there was nothing else. */
const withAllowedSettings = (request: SendMessageRequest, keep: ReadonlySet<string>, removed: Set<string>): SendMessageRequest =>
  withSettingsEdited(request, (metadata) => allowedIn(metadata, keep, removed));

function allowedIn(
  metadata: Record<string, unknown> | undefined,
  keep: ReadonlySet<string>,
  removed: Set<string>,
): Record<string, unknown> | undefined {
  const settings = metadata?.iac_code;
  if (settings === undefined) return metadata;
  // Not an object: nothing iac-code could read a setting from, and nothing of the caller's to keep there.
  if (!isRecord(settings)) {
    removed.add('iac_code');
    return withFields(metadata, { iac_code: {} });
  }
  const names = Object.keys(settings);
  const dropped = names.filter((name) => !keep.has(name));
  if (dropped.length === 0) return metadata;
  for (const name of dropped) removed.add(name);
  return withFields(metadata, { iac_code: Object.fromEntries(names.filter((name) => keep.has(name)).map((name) => [name, settings[name]])) });
}
