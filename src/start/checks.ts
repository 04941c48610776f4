import type { SecureContextOptions } from 'node:tls';
import type { GatewayConfig } from '../config/schema.js';
import { loadMappingProfile, type MappingProfile } from '../mappings/index.js';
import { unknownProfile } from '../config/bailian-schema.js';
import { ConfigError } from '../config/config-error.js';
import type { KeyRing } from '../signing/keys.js';
import { loadTlsFiles, tlsEnabled, type ClientTlsFiles } from '../http/tls.js';
import { upstreamTlsFiles } from '../upstream/upstream-tls.js';
import { openCallerSettingsWarning } from '../upstream/iac-code/open-caller-settings.js';
import { assertPortSettingsDistinct } from './port-check.js';

/** What the start reads from the operator's files and keys, each checked before anything starts. */
export interface StartFiles {
  /** The facade's mapping profile with `bailian.mappings` laid over it; absent with the facade off. */
  profile?: MappingProfile;
  signingKeys: KeyRing;
  upstreamTls: ClientTlsFiles;
  /** The server's certificate and key (`tls.*`); absent without them. */
  tls?: SecureContextOptions;
}

/**
 * The facade's profile with the operator's overrides: a bad file or override throws here, at start. A name no
 * profile has is told as a setting outside its choices is (the text given is not repeated).
 */
export function loadFacadeProfile(config: GatewayConfig): MappingProfile {
  // Read config is checked as it is read (bailian-schema.ts); a config an embedder built by hand is not.
  const unknown = unknownProfile(config.bailian.profile);
  if (unknown) throw new ConfigError(`bailian.profile: ${unknown.message}`);
  return loadMappingProfile(config.bailian.profile, config.bailian.mappings);
}

/**
 * The start's checks of the configuration that need nothing started and no network: each reads what
 * serve reads (with the same functions) and throws what would stop it, naming the setting. What only
 * some configs need is loaded when they do: check-config need not load push, Redis or the signing code.
 */
const checks = (config: GatewayConfig) => ({
  profile: async () => (config.bailian.enabled ? loadFacadeProfile(config) : undefined),
  signingKeys: async () => (await import('../signing/keys.js')).loadKeyRing(config.signing.keys),
  upstreamTls: async () => upstreamTlsFiles(config.upstream.tls),
  // The Redis connections read `redis-tls` when they are made (redis/tls.ts); only Redis and push make them.
  redisTls: async () => {
    if (config.store !== 'redis' && !config['push-notifications']) return;
    const [{ redisKeyGroups }, { redisEndpoint }] = await Promise.all([import('../redis/cluster-check.js'), import('../redis/tls.js')]);
    for (const group of redisKeyGroups(config)) redisEndpoint(config, group.url);
  },
  jwtKeyFile: async () => config.auth.jwt && (await import('../surfaces/shared/jwt-keys.js')).checkJwtKeyFile(config.auth.jwt),
  // Push's files live in persistence-dir, its generated key file too: one problem, told once.
  push: async () => {
    if (!config['push-notifications']) return;
    await (await import('./persistence-dir.js')).checkPersistenceDir(config);
    (await import('../push/key-file.js')).checkPushKeyRing(config);
    await (await import('../push/state-files.js')).checkPushStateFiles(config);
  },
  tls: async () => (tlsEnabled(config.tls) ? loadTlsFiles(config.tls) : undefined),
  // Whether the ports are free depends on the host serve runs on; two settings naming one port does not.
  ports: async () => assertPortSettingsDistinct(config),
});

/** serve: the files and keys, read and checked in turn; the first problem stops the start. */
export async function loadStartFiles(config: GatewayConfig): Promise<StartFiles> {
  const check = checks(config);
  const profile = await check.profile();
  const signingKeys = await check.signingKeys();
  const upstreamTls = await check.upstreamTls();
  await check.redisTls();
  await check.jwtKeyFile();
  await check.push();
  const tls = await check.tls();
  return { signingKeys, upstreamTls, ...(profile ? { profile } : {}), ...(tls ? { tls } : {}) };
}

/** check-config: every problem the start would stop for in loadStartFiles, all of them (the errors). */
export async function startFileProblems(config: GatewayConfig): Promise<unknown[]> {
  const settled = await Promise.allSettled(Object.values(checks(config)).map((check) => check()));
  return settled.flatMap((result): unknown[] => (result.status === 'rejected' ? [result.reason as unknown] : []));
}

/** What serve checks at start that check-config cannot: it needs this host's ports or the network. */
export async function checkedOnlyAtStart(config: GatewayConfig): Promise<string[]> {
  const { redisKeyGroups } = await import('../redis/cluster-check.js');
  return [
    'that the ports are free (on the host serve runs on)',
    ...(redisKeyGroups(config).length > 0 ? ['that the Redis takes the configured credentials and, on a cluster, the key names'] : []),
    // Only the agent's card tells iac-code apart (open-caller-settings.ts), and check-config calls no agent.
    ...(openCallerSettingsWarning(config.upstream)
      ? ['whether the agent is an iac-code, whose per-turn settings every caller may then set (upstream.caller-settings is not set)']
      : []),
  ];
}
