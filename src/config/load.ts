import path from 'node:path';
import { callerAuthConfigured } from './credentials-schema.js';
import { GatewayConfig } from './schema.js';
import { ConfigError } from './config-error.js';
import { fileLayer } from './file-layer.js';
import { limitNameWarnings } from './limits-schema.js';
import { clientNameOf } from './named-secrets.js';
import { closestKey } from './key-suggestion.js';
import { choiceIssueText, typeIssueText, yamlNumberHint } from './type-issue.js';
import { workspacePruning } from './workspace-prune-schema.js';
import { contextOwnerTtl } from '../core/task-registry/context-owner.js';
import { isWildcardHost } from '../wildcard-host.js';
import { CONFIG_ENV, conventionalEnvLayer, ENV_PREFIX, leafAt, prefixedEnvLayer } from './env-layers.js';
import { coerce, deepMerge, dotted, setPath, shapeOf, type KeyPath, type Tree } from './schema-tree.js';
import { conventionalName, CONVENTIONAL_VARIABLES, rememberConventionalSources } from './setting-sources.js';
import { unfoldUnion } from './union-issues.js';

export { ConfigError, ENV_PREFIX };

export type Command = 'serve' | 'check-config' | 'health' | 'help' | 'version';

export interface LoadedConfig {
  config: GatewayConfig;
  warnings: string[];
  command: Command;
}

export interface LoadInput {
  /** Arguments after the program name (`process.argv.slice(2)`). */
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Base for a relative `--config` path. */
  cwd: string;
}

/* ----- command line ----- */

interface FlagSpec {
  keys: KeyPath;
  metavar: string;
  help: string;
}

const DEFAULTS = GatewayConfig.parse({});
const LOG_LEVELS = GatewayConfig.shape['log-level'].unwrap().options.join('|');

const FLAGS: Record<string, FlagSpec> = {
  '--host': { keys: ['host'], metavar: 'HOST', help: `interface to bind (default ${DEFAULTS.host})` },
  '--port': { keys: ['port'], metavar: 'PORT', help: `TCP port (default ${DEFAULTS.port}; 0 picks a free one)` },
  '--upstream': { keys: ['upstream', 'url'], metavar: 'URL', help: 'A2A agent to bridge to (default: embedded demo agent)' },
  '--public-url': { keys: ['public-url'], metavar: 'URL', help: 'base URL callers use; agent cards advertise it' },
  '--log-level': { keys: ['log-level'], metavar: 'LEVEL', help: `${LOG_LEVELS} (default ${DEFAULTS['log-level']})` },
};

const COMMANDS: readonly Command[] = ['serve', 'check-config', 'health', 'help', 'version'];
/** The commands that talk to an agent (src/cli/main.ts runs them before any configuration is read): named where a command is. */
const AGENT_COMMANDS = ['call', 'card', 'lint'] as const;

interface ParsedArgs {
  command: Command;
  configFile?: string;
  flags: Array<{ flag: string; value: string }>;
}

function parseArgv(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: ParsedArgs['flags'] = [];
  let configFile: string | undefined;
  let wantsHelp = false;
  let wantsVersion = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') wantsHelp = true;
    else if (arg === '--version') wantsVersion = true;
    else if (arg.startsWith('-')) {
      const eq = arg.indexOf('=');
      const flag = eq > 0 ? arg.slice(0, eq) : arg;
      if (flag !== '--config' && !FLAGS[flag]) throw new ConfigError(`unknown option ${flag}`);
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      // An empty value (`--config="$CONFIG"` with CONFIG unset) is no value: taken as given, it would stand for the default.
      if (!value || (eq < 0 && value.startsWith('--'))) throw new ConfigError(`option ${flag} needs a value`);
      if (flag === '--config') configFile = value;
      else flags.push({ flag, value });
    } else positionals.push(arg);
  }
  // The command first: a mistyped one (`cal URL text`) is what is wrong, not the arguments after it.
  const named = positionals[0] ?? 'serve';
  if (!COMMANDS.includes(named as Command))
    throw new ConfigError(`unknown command ${named} (expected ${[...COMMANDS, ...AGENT_COMMANDS].join(', ')})`);
  if (positionals.length > 1) throw new ConfigError(`unexpected argument ${positionals[1]}`);
  const command: Command = wantsHelp ? 'help' : wantsVersion ? 'version' : (named as Command);
  return { command, configFile, flags };
}

/* ----- validation and advice ----- */

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: string;
  /** The choices of an `invalid_value` issue (an enum or a literal). */
  values?: unknown[];
  /** What each option of an `invalid_union` issue found wrong. */
  errors?: Issue[][];
}

/** YAML reads `api-key: 123` (and `protocol: 1.0`) as a number: say how to make it the string the key expects. */
function quoteHint(issue: Issue, keys: readonly string[], given: unknown): string {
  if (issue.code === 'invalid_value' && issue.values) return yamlNumberHint(issue.values, keys, given);
  if (issue.code !== 'invalid_type' || issue.expected !== 'string') return '';
  return typeof given === 'number' || typeof given === 'boolean' ? ` — YAML read it as a ${typeof given}: quote it (key: "value")` : '';
}

/** The value at `keys` in the merged layers: what the operator gave where a problem is. */
const givenAt = (tree: Tree, keys: readonly string[]): unknown =>
  keys.reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), tree);

function describeIssues(issues: readonly Issue[], sources: Map<string, string>, env: NodeJS.ProcessEnv, merged: Tree): string {
  const lines: string[] = [];
  const sourceNameOf = (keys: string[]): string | undefined =>
    keys.map((_, n) => sources.get(dotted(keys.slice(0, keys.length - n)))).find((source) => source !== undefined);
  const sourceOf = (keys: string[]): string => (sourceNameOf(keys) ? ` (from ${sourceNameOf(keys)})` : '');
  // Only leaves are recorded: an unknown key holding a mapping (`upstrem:` with `url:` under it) came from where its leaves did.
  const unknownKeySource = (keys: string[]): string => {
    const under = `${dotted(keys)}.`;
    const leaf = [...sources.entries()].find(([key]) => key.startsWith(under));
    return sourceOf(keys) || (leaf ? ` (from ${leaf[1]})` : '');
  };
  for (const issue of issues.flatMap((told) => unfoldUnion(told, givenAt(merged, told.path.map(String))))) {
    const keys = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      const known = Object.keys(shapeOf(leafAt(keys)));
      for (const key of issue.keys ?? []) {
        const meant = closestKey(key, known);
        const suggestion = meant ? `, did you mean ${meant}?` : '';
        lines.push(`${dotted([...keys, key])}: unknown key${suggestion}${unknownKeySource([...keys, key])}; known keys here: ${known.join(', ')}`);
      }
      continue;
    }
    const given = givenAt(merged, keys);
    const problem =
      issue.code === 'invalid_type'
        ? typeIssueText(issue.expected, keys, given)
        : issue.code === 'invalid_value' && issue.values
          ? choiceIssueText(issue.values, given)
          : issue.message;
    const sourceName = sourceNameOf(keys);
    if (sourceName && CONVENTIONAL_VARIABLES.has(sourceName)) {
      lines.push(`${conventionalName(sourceName, dotted(keys))}: ${problem}`);
      continue;
    }
    const source = sourceOf(keys);
    const hint =
      source.includes(`${ENV_PREFIX}PORT`) && env[`${ENV_PREFIX}PORT`]?.startsWith('tcp://')
        ? ' — this looks like a Kubernetes service link variable; set enableServiceLinks: false or rename the service'
        : quoteHint(issue, keys, given);
    lines.push(`${dotted(keys) || '(root)'}: ${problem}${source}${hint}`);
  }
  return `invalid configuration:\n${lines.map((line) => `  - ${line}`).join('\n')}`;
}

/** The facade on the same port has keys of its own (`bailian.*`): without them it is open as well, and the warning says so. */
function openFacadeToo(bailian: GatewayConfig['bailian']): string {
  if (!bailian.enabled || bailian['api-key'] || bailian['api-keys'].length > 0) return '';
  return '; bailian.api-key is not set either, so the Bailian facade (/.well-known/agent.json, message/send, message/stream) is open too (set bailian.api-key or bailian.api-keys)';
}

function adviseOn(config: GatewayConfig): string[] {
  const warnings: string[] = [];
  const publicUrl = config['public-url'];
  if (!publicUrl) {
    warnings.push(
      'public-url is not set: agent cards will advertise the Host of each request (set it behind a proxy or when registering in Bailian)',
    );
  } else if (config.bailian.enabled && !publicUrl.startsWith('https:')) {
    warnings.push('public-url is not https while the Bailian facade is enabled: Bailian requires an HTTPS card url');
  }
  const prefix = publicUrl ? new URL(publicUrl).pathname.replace(/\/+$/, '') : '';
  if (prefix) {
    // Cards advertise public-url with the routes after it, while the gateway serves them at its root: a caller
    // following the card reaches it only through a proxy that takes the prefix off.
    warnings.push(
      `public-url has a path (${prefix}): cards advertise the gateway's routes under it, but the gateway serves them at its root, so the proxy in front must strip ${prefix} before forwarding (a request for ${prefix}/.well-known/agent.json must reach /.well-known/agent.json)`,
    );
  }
  const withAuth = callerAuthConfigured(config.auth);
  if (isWildcardHost(config.host) && !withAuth) {
    warnings.push(
      `binding ${config.host} without auth: anyone who can reach this port can use the upstream agent (set auth.token, auth.api-key, auth.basic-*, the lists auth.tokens, auth.api-keys, auth.jwt or auth.introspection)${openFacadeToo(config.bailian)}`,
    );
  }
  const grpcHost = config.grpc.host;
  if (config.grpc.port !== undefined && grpcHost !== undefined && isWildcardHost(grpcHost) && !withAuth) {
    warnings.push(
      `binding the gRPC port on ${grpcHost} without auth: anyone who can reach it can use the upstream agent (set auth.token, auth.api-key, auth.basic-*, the lists auth.tokens, auth.api-keys, auth.jwt or auth.introspection)`,
    );
  }
  return [...warnings, ...basicNameWarnings(config.auth), ...pruneWarnings(config), ...limitNameWarnings(config), ...leaseWarnings(config)];
}

/**
 * A lease no longer than a delivery: a replica renews the leases of what it holds every quarter lease, in
 * flight too, so only one whose event loop stalls for most of a lease loses an entry it is delivering; a
 * lease that short makes such a stall (a long GC pause, a busy host) enough.
 */
function leaseWarnings(config: GatewayConfig): string[] {
  const lease = config['push-lease-timeout-ms'];
  const delivery = config['push-timeout-ms'];
  if (config['push-queue'] !== 'redis-streams' || lease > delivery) return [];
  return [
    `push-lease-timeout-ms (${lease}) is not above push-timeout-ms (${delivery}): a replica whose event loop stalls for most of a lease loses a notification it is delivering to another replica, and the webhook gets it twice`,
  ];
}

/** A folder belongs to a context id: kept past the gateway's memory of the context's owner, another caller naming it would get its files. */
function pruneWarnings(config: GatewayConfig): string[] {
  const pruning = workspacePruning(config.upstream);
  const ownerTtl = contextOwnerTtl(config.tasks['idle-ttl-ms'], config.tasks['context-owner-ttl-ms']);
  if (!pruning || ownerTtl === 0 || pruning.idleAfterMs <= ownerTtl) return [];
  return [
    `upstream.workspace-prune.idle-after-ms (${pruning.idleAfterMs}) is above tasks.context-owner-ttl-ms (${ownerTtl}): a conversation's folder outlives the gateway's memory of who owns it, and another caller naming that context would be given its files`,
  ];
}

/** The Basic caller is named by its user; one that cannot be a client name would leave it unnamed without a word. */
function basicNameWarnings(auth: GatewayConfig['auth']): string[] {
  const username = auth['basic-username'];
  if (!username || !auth['basic-password'] || clientNameOf(username) !== undefined) return [];
  return [
    'auth.basic-username is not a valid client name (1 to 64 letters, digits, ".", "_" or "-"): Basic callers stay unnamed in logs and metrics',
  ];
}

/** Flags beat environment beat file beat defaults; `REDIS_URL` sits just above the defaults. */
export async function loadConfig(input: LoadInput): Promise<LoadedConfig> {
  const args = parseArgv(input.argv);
  if (args.command === 'help' || args.command === 'version') return { config: GatewayConfig.parse({}), warnings: [], command: args.command };

  const warnings: string[] = [];
  const sources = new Map<string, string>();
  let merged = conventionalEnvLayer(input.env, sources);
  const configFile = args.configFile ?? input.env[CONFIG_ENV];
  if (configFile) {
    const file = path.resolve(input.cwd, configFile);
    merged = deepMerge(merged, await fileLayer(file, configFile, { env: input.env, sources }));
  }
  merged = deepMerge(merged, prefixedEnvLayer(input.env, sources, warnings));
  const flagLayer: Tree = {};
  for (const { flag, value } of args.flags) {
    const { keys } = FLAGS[flag]!;
    setPath(flagLayer, keys, coerce(value, leafAt(keys), flag));
    sources.set(dotted(keys), flag);
  }
  merged = deepMerge(merged, flagLayer);

  const result = GatewayConfig.safeParse(merged);
  if (!result.success) throw new ConfigError(describeIssues(result.error.issues, sources, input.env, merged));
  rememberConventionalSources(result.data, sources);
  return { config: result.data, warnings: [...warnings, ...adviseOn(result.data)], command: args.command };
}

/** The `--help` text; defaults and choices come from the schema so they cannot drift. */
export function usage(program = 'a2a-bridge'): string {
  const options = Object.entries(FLAGS).map(([flag, spec]) => `  ${`${flag} ${spec.metavar}`.padEnd(20)} ${spec.help}`);
  return [
    `Usage: ${program} [serve|check-config|health|help|version] [options]`,
    `       ${program} ${AGENT_COMMANDS.join('|')} URL ...   (${program} call --help)`,
    '',
    'Commands:',
    '  serve                start the gateway (default)',
    '  check-config         validate the configuration and print it with secrets masked',
    '  health               exit 0 when the gateway so configured answers /health on this machine',
    '  call URL TEXT        send a message to an A2A agent (1.0 or 0.2.5) and print the reply',
    "  card URL             print an agent's card",
    "  lint URL             check a 0.2.5 card and a test turn against Bailian's contract",
    '  help                 print this help',
    '  version              print the version',
    '',
    'Options (also --option=value):',
    `  ${'--config FILE'.padEnd(20)} YAML config file (or env ${CONFIG_ENV})`,
    ...options,
    `  ${'-h, --help'.padEnd(20)} print this help`,
    `  ${'--version'.padEnd(20)} print the version`,
    '',
    'Environment:',
    `  Every config key can be set as ${ENV_PREFIX}<KEY>: upper-case, '-' becomes '_', nesting is '__'.`,
    `  e.g. ${ENV_PREFIX}PORT=9000  ${ENV_PREFIX}UPSTREAM__URL=http://host:port  ${ENV_PREFIX}PUSH_NOTIFICATIONS=true`,
    `       ${ENV_PREFIX}AUTH__TOKEN=...  ${ENV_PREFIX}BAILIAN__API_KEY=...  (lists: JSON or comma-separated)`,
    `  REDIS_URL sets redis-url unless ${ENV_PREFIX}REDIS_URL or the config file does. PORT/HOST are not read.`,
    '  Precedence: options > environment > config file > defaults.',
    '  Config file strings may reference ${VAR} or ${VAR:-default}.',
  ].join('\n');
}
