import YAML from 'yaml';
import type { GatewayConfig } from '../config/schema.js';
import { SECRET_KEYS } from '../config/secret-keys.js';
import { demoUpstreamWarning } from '../start/demo-upstream-warning.js';
import { configWarnings } from '../start/warnings.js';
import { isRecord } from '../model/json.js';
import { checkedOnlyAtStart, startFileProblems } from '../start/checks.js';
import { withoutUrlCredentials } from '../url-credentials.js';
import { complain, EXIT_OK, EXIT_USAGE, shown, startupLine } from './exit-codes.js';

const MASK = '********';

/**
 * A URL-valued setting (`redis-url`, `upstream.url`, `tracing.otlp-endpoint`, a JWKS URL...) without the
 * credentials written into it, by the rule serve's log and the CLI's messages follow (url-credentials.ts):
 * its user info, and the values of secret-named query parameters (`?api_key=`, `&sentinelPassword=`).
 */
const maskUrlCredentials = (value: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? withoutUrlCredentials(value) : value);

/** An entry of a secret list, masked; a named one (`{ name, token }`) keeps its name, which is not secret and is what the operator looks for. */
const maskEntry = (entry: unknown): unknown =>
  isRecord(entry) ? Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, k === 'name' ? v : MASK])) : MASK;

/** A copy of the config with every secret replaced by a mask (an absent secret stays absent). */
export function maskSecrets(value: unknown, key = ''): unknown {
  if (SECRET_KEYS.has(key) && value !== undefined) return Array.isArray(value) ? value.map(maskEntry) : MASK;
  if (typeof value === 'string') return maskUrlCredentials(value);
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v, k)]));
  }
  return value;
}

/**
 * `a2a-bridge check-config`: the configuration from file, environment and flags is valid, and so is
 * everything serve reads from it at start before it starts anything (start/checks.ts: the facade's
 * mapping overrides, signing keys, TLS files, the JWT key file, push keys, `persistence-dir`), by the
 * same functions; prints the effective configuration, secrets masked, on stdout and the start-up
 * warnings on stderr, with what only the start can check. Exit 0 valid, 2 not (one line per problem).
 */
export async function checkConfig(config: GatewayConfig, warnings: string[]): Promise<number> {
  const problems = await startFileProblems(config);
  if (problems.length > 0) {
    complain(`invalid configuration:\n${problems.map((problem) => `  - ${startupLine(problem)}`).join('\n')}`);
    return EXIT_USAGE;
  }
  // What serve would warn of once started (start/warnings.ts, start/demo-upstream-warning.ts) is said here too, before it is.
  const demoWarning = demoUpstreamWarning(config);
  const startWarnings = demoWarning ? [...configWarnings(config), demoWarning] : configWarnings(config);
  for (const warning of [...warnings, ...startWarnings]) process.stderr.write(`warning: ${shown(warning)}\n`);
  process.stderr.write(`note: not checked here, only by serve at start: ${(await checkedOnlyAtStart(config)).join('; ')}\n`);
  process.stdout.write(`# effective configuration (secrets masked)\n${YAML.stringify(maskSecrets(config))}`);
  return EXIT_OK;
}
