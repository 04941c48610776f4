import { GatewayConfig } from './schema.js';
import { ConfigError } from './config-error.js';
import { isRecord } from '../model/json.js';

export type Tree = Record<string, unknown>;
export type KeyPath = string[];

/* ----- the schema, seen as a tree of known keys and leaf types ----- */

export interface SchemaNode {
  _zod: {
    def: {
      type: string;
      innerType?: SchemaNode;
      shape?: Record<string, SchemaNode>;
      element?: SchemaNode;
      valueType?: SchemaNode;
      options?: SchemaNode[];
    };
  };
}

const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly']);
export const ROOT = GatewayConfig as unknown as SchemaNode;

export function unwrap(node: SchemaNode): SchemaNode {
  let current = node;
  while (WRAPPERS.has(current._zod.def.type) && current._zod.def.innerType) current = current._zod.def.innerType;
  return current;
}

export const kindOf = (node: SchemaNode | undefined): string => (node ? unwrap(node)._zod.def.type : 'unknown');
/** The fields an object node takes; a union's are its object options' (a named secret's `name` and `token`). */
export function shapeOf(node: SchemaNode | undefined): Record<string, SchemaNode> {
  const def = node && unwrap(node)._zod.def;
  if (def?.type === 'union') return Object.assign({}, ...(def.options ?? []).map(shapeOf)) as Record<string, SchemaNode>;
  return def?.shape ?? {};
}

const unionOptions = (node: SchemaNode | undefined): SchemaNode[] => (node ? (unwrap(node)._zod.def.options ?? []) : []);

/** The schema of `key` below `node` (object field, record value or array element). */
export function childOf(node: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (!node) return undefined;
  const def = unwrap(node)._zod.def;
  if (def.type === 'object' || def.type === 'union') return shapeOf(node)[key];
  if (def.type === 'record') return def.valueType;
  if (def.type === 'array') return def.element;
  return undefined;
}

/* ----- small tree helpers ----- */

export const isPlainObject = (value: unknown): value is Tree => isRecord(value);

export function setPath(tree: Tree, keys: KeyPath, value: unknown): void {
  let cursor = tree;
  for (const key of keys.slice(0, -1)) {
    if (!isPlainObject(cursor[key])) cursor[key] = {};
    cursor = cursor[key] as Tree;
  }
  cursor[keys[keys.length - 1]!] = value;
}

export function deepMerge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] = isPlainObject(prior) && isPlainObject(value) ? deepMerge(prior, value) : value;
  }
  return out;
}

export const dotted = (keys: readonly (string | number | symbol)[]): string => keys.map(String).join('.');

/** Strings from env, flags or `${VAR}` expansion take the type of the field they land in. */
export function coerce(raw: string, node: SchemaNode | undefined, where: string): unknown {
  const text = raw.trim();
  switch (kindOf(node)) {
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : raw;
    case 'boolean':
      if (/^(true|1|yes|on)$/i.test(text)) return true;
      if (/^(false|0|no|off)$/i.test(text)) return false;
      return raw;
    case 'array':
      if (text.startsWith('[')) return parseJson(text, where, 'a JSON array');
      return text === '' ? [] : text.split(',').map((item) => coerce(item.trim(), childOf(node, '0'), where));
    case 'object':
    case 'record':
      return text.startsWith('{') ? parseJson(text, where, 'a JSON object') : raw;
    case 'union':
      // One value or a list of them (`auth.jwt.audience`): a list is given as JSON.
      return text.startsWith('[') && unionOptions(node).some((option) => kindOf(option) === 'array') ? parseJson(text, where, 'a JSON array') : raw;
    default:
      return raw;
  }
}

function parseJson(text: string, where: string, expected: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError(`${where}: expected ${expected} (the value is not valid JSON)`);
  }
}
