/**
 * The environment's layers of the configuration: A2A_BRIDGE_<KEY> variables mapped onto the schema's keys,
 * and the conventional REDIS_URL. Each records in `sources` which variable set which key.
 */
import { closestKey } from './key-suggestion.js';
import { childOf, coerce, dotted, kindOf, ROOT, setPath, shapeOf, type KeyPath, type SchemaNode, type Tree } from './schema-tree.js';

export const ENV_PREFIX = 'A2A_BRIDGE_';
/** Names the config file, like --config; the one prefixed variable that is no key. */
export const CONFIG_ENV = `${ENV_PREFIX}CONFIG`;
const envToken = (key: string): string => key.toUpperCase().replace(/-/g, '_');

/**
 * Maps `PUSH_NOTIFICATIONS` to `push-notifications` and `UPSTREAM__URL` to `upstream.url` by walking the
 * schema's keys: an exact key wins over descending into an object, so single underscores inside a key
 * never read as nesting. (`UPSTREAM_URL` also resolves, for the forgetful; `__` is the documented form.)
 */
function resolveEnvName(node: SchemaNode, name: string): KeyPath | undefined {
  const shape = shapeOf(node);
  const exact = Object.keys(shape).find((key) => envToken(key) === name);
  if (exact) return [exact];
  for (const [key, child] of Object.entries(shape)) {
    if (kindOf(child) !== 'object') continue;
    for (const separator of ['__', '_']) {
      const head = envToken(key) + separator;
      if (!name.startsWith(head)) continue;
      const rest = resolveEnvName(child, name.slice(head.length));
      if (rest) return [key, ...rest];
    }
  }
  return undefined;
}

/** The schema node of the key at `keys`, or undefined when the schema has none there. */
export function leafAt(keys: KeyPath): SchemaNode | undefined {
  let node: SchemaNode | undefined = ROOT;
  for (const key of keys) node = childOf(node, key);
  return node;
}

/** The documented variable of every key below `node` (`A2A_BRIDGE_UPSTREAM__URL`), mappings and their keys alike. */
function envNames(node: SchemaNode, prefix: string): string[] {
  return Object.entries(shapeOf(node)).flatMap(([key, child]) => {
    const name = prefix + envToken(key);
    return kindOf(child) === 'object' ? [name, ...envNames(child, `${name}__`)] : [name];
  });
}

/** REDIS_URL as redis-url; recorded in `sources` so a bad value is told under REDIS_URL. */
export function conventionalEnvLayer(env: NodeJS.ProcessEnv, sources: Map<string, string>): Tree {
  const layer: Tree = {};
  const conventionalRedis = env.REDIS_URL;
  if (conventionalRedis && env[`${ENV_PREFIX}REDIS_URL`] === undefined) {
    // Below the file on purpose: an explicit redis-url in the file beats an ambient REDIS_URL.
    layer['redis-url'] = conventionalRedis;
    sources.set('redis-url', 'REDIS_URL');
  }
  return layer;
}

/** Every A2A_BRIDGE_<KEY> variable as its key; one that names no key is a warning. */
export function prefixedEnvLayer(env: NodeJS.ProcessEnv, sources: Map<string, string>, warnings: string[]): Tree {
  const layer: Tree = {};
  for (const [variable, raw] of Object.entries(env)) {
    if (!variable.startsWith(ENV_PREFIX) || variable === CONFIG_ENV || raw === undefined) continue;
    const keys = resolveEnvName(ROOT, variable.slice(ENV_PREFIX.length));
    if (!keys) {
      // A warning, not an error: orchestrators inject look-alikes (Kubernetes' A2A_BRIDGE_SERVICE_HOST, ...).
      const meant = closestKey(variable, envNames(ROOT, ENV_PREFIX));
      warnings.push(`ignoring environment variable ${variable}: it names no configuration key${meant ? ` (did you mean ${meant}?)` : ''}`);
      continue;
    }
    setPath(layer, keys, coerce(raw, leafAt(keys), variable));
    sources.set(dotted(keys), variable);
  }
  return layer;
}
