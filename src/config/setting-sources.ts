import type { GatewayConfig } from './schema.js';

/** Variables read for a key without its name: a bad value is told under the variable's (an operator who set REDIS_URL looks for no redis-url). */
export const CONVENTIONAL_VARIABLES: ReadonlySet<string> = new Set(['REDIS_URL']);

/** How a key read from a conventional variable is named in every message about it. */
export const conventionalName = (variable: string, setting: string): string => `${variable} (environment variable, read as ${setting})`;

/**
 * The keys of each loaded config that came from a conventional variable. Kept beside the config, not in
 * it: checks that run at start (a Redis that refuses the credentials) must name REDIS_URL as the load
 * did, and the config's shape stays the schema's. A config built otherwise (tests, a copy) has none.
 */
const conventionalSources = new WeakMap<GatewayConfig, ReadonlyMap<string, string>>();

/** Records, from the load's `sources` (dotted key to where it was read), the keys a conventional variable set. */
export function rememberConventionalSources(config: GatewayConfig, sources: ReadonlyMap<string, string>): void {
  const conventional = [...sources].filter(([, source]) => CONVENTIONAL_VARIABLES.has(source));
  if (conventional.length > 0) conventionalSources.set(config, new Map(conventional));
}

/** `setting` as the operator set it: the conventional variable's name when one gave it its value. */
export function settingAsSet(config: GatewayConfig, setting: string): string {
  const variable = conventionalSources.get(config)?.get(setting);
  return variable ? conventionalName(variable, setting) : setting;
}
