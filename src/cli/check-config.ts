import YAML from 'yaml';
import type { GatewayConfig } from '../config/schema.js';
import { facadeKeyWarning } from '../facade-key-warning.js';
import { loadMappingProfile } from '../mappings/index.js';
import { isRecord } from '../model/json.js';
import { complain, EXIT_OK, EXIT_USAGE, oneLine } from './exit-codes.js';

const MASK = '********';
/** Keys whose values are secrets wherever they appear in the tree. */
const SECRET_KEYS = new Set(['token', 'tokens', 'basic-password', 'api-key', 'api-keys', 'push-keys', 'secret', 'client-secret', 'private-key']);

/**
 * `redis://user:pass@host` keeps its shape with the password masked, and so does a password in the
 * query (`redis+sentinel://…?sentinelPassword=…`, ioredis's `redis://host?password=…`).
 */
function maskUrlPassword(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]+@/i, `$1${MASK}@`).replace(/([?&][^=&#]*password=)[^&#]*/gi, `$1${MASK}`);
}

/** An entry of a secret list, masked; a named one (`{ name, token }`) keeps its name, which is not secret and is what the operator looks for. */
const maskEntry = (entry: unknown): unknown =>
  isRecord(entry) ? Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, k === 'name' ? v : MASK])) : MASK;

/** A copy of the config with every secret replaced by a mask (an absent secret stays absent). */
export function maskSecrets(value: unknown, key = ''): unknown {
  if (SECRET_KEYS.has(key) && value !== undefined) return Array.isArray(value) ? value.map(maskEntry) : MASK;
  if (typeof value === 'string') return maskUrlPassword(value);
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v, k)]));
  }
  return value;
}

/**
 * `a2a-bridge check-config`: the configuration from file, environment and flags is valid (including the
 * facade's mapping overrides, which otherwise only fail at start); prints the effective configuration,
 * secrets masked, on stdout and the start-up warnings on stderr. Exit 0 valid, 2 not.
 */
export function checkConfig(config: GatewayConfig, warnings: string[]): number {
  if (config.bailian.enabled) {
    try {
      loadMappingProfile(config.bailian.profile, config.bailian.mappings);
    } catch (error) {
      complain(`invalid configuration:\n  - ${oneLine(error)}`);
      return EXIT_USAGE;
    }
  }
  // What serve would warn of once started (facade-key-warning.ts) is said here too, before it is.
  const facadeWarning = facadeKeyWarning(config);
  for (const warning of facadeWarning ? [...warnings, facadeWarning] : warnings) process.stderr.write(`warning: ${warning}\n`);
  process.stdout.write(`# effective configuration (secrets masked)\n${YAML.stringify(maskSecrets(config))}`);
  return EXIT_OK;
}
