import type { Logger } from 'pino';
import type { CardSource } from '../../core/card-source.js';
import type { AgentCard } from '../../model/index.js';
import { isIacCodeCard } from './preferred-language.js';

/** The settings of the gateway this warning reads. */
export interface CallerSettingsConfig {
  /** Unset: the embedded demo, whose card names iac-code's artifact extension but which reads no caller setting. */
  url?: string | undefined;
  'caller-settings'?: readonly string[] | undefined;
  'workspace-root'?: string | undefined;
}

/** What the operator is told: the keys any caller can set (names only) and the words saying how to restrict them. */
export interface OpenCallerSettingsWarning {
  fields: { callerSettable: string[] };
  message: string;
}

/** The four keys of a caller's own Alibaba Cloud account: what a deployment whose callers bring one allows. */
const OWN_CLOUD_ACCOUNT_KEYS = [
  'alibaba_cloud_access_key_id',
  'alibaba_cloud_access_key_secret',
  'alibaba_cloud_security_token',
  'alibaba_cloud_region_id',
];

/**
 * Keys of `metadata.iac_code` iac-code takes from whoever sent the turn (docs/iac-code.md, "What a caller
 * can set per turn"). Its reasoning (`thinking*`) and pipeline settings are said in words only: their
 * exact names are not known here.
 */
const SETTABLE_KEYS = ['iac_code_model', 'iac_code_api_key', 'llm_headers', ...OWN_CLOUD_ACCOUNT_KEYS, 'run_mode'];

/**
 * Without `upstream.caller-settings` every holder of a gateway credential sets iac-code's per-turn settings
 * (caller-settings.ts), its cloud account among them, and without `workspace-root` its folder too
 * (`cwd`); undefined when the list is set. Said of an iac-code only: whether the agent is one is read
 * from its card (warnOpenCallerSettings), which check-config never fetches.
 */
export function openCallerSettingsWarning(upstream: CallerSettingsConfig): OpenCallerSettingsWarning | undefined {
  if (upstream.url === undefined || upstream['caller-settings'] !== undefined) return undefined;
  const folderToo = upstream['workspace-root'] === undefined;
  const callerSettable = folderToo ? ['cwd', ...SETTABLE_KEYS] : SETTABLE_KEYS;
  const folder = folderToo ? ', and the folder it works in (cwd, as upstream.workspace-root is not set either)' : '';
  return {
    fields: { callerSettable },
    message:
      'upstream.caller-settings is not set: every caller holding a gateway credential sets the per-turn settings of iac-code ' +
      '(metadata.iac_code): the model, an LLM API key and headers, Alibaba Cloud credentials (a turn without them runs on your account), ' +
      `reasoning and the run mode${folder}. List the keys callers may set in upstream.caller-settings: ` +
      `[${OWN_CLOUD_ACCOUNT_KEYS.join(', ')}] when they bring their own cloud account, [] for none`,
  };
}

/**
 * Logs openCallerSettingsWarning once, when the agent's card first shows it is an iac-code (at start,
 * or on a later refresh if it was not up or not iac-code then), and never again however often the card
 * changes: it is about the configuration, which does not.
 */
export function warnOpenCallerSettings(cards: CardSource, upstream: CallerSettingsConfig, logger: Logger): void {
  const warning = openCallerSettingsWarning(upstream);
  if (!warning) return;
  let warned = false;
  const check = (card: AgentCard): void => {
    if (warned || !isIacCodeCard(card)) return;
    warned = true;
    logger.warn(warning.fields, warning.message);
  };
  const current = cards.current();
  if (current) check(current.card);
  cards.onChange((snapshot) => check(snapshot.card));
}
