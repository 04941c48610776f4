import { readFile } from 'node:fs/promises';
import YAML, { YAMLError } from 'yaml';
import { ConfigError } from './config-error.js';
import { childOf, coerce, dotted, isPlainObject, kindOf, ROOT, type KeyPath, type SchemaNode, type Tree } from './schema-tree.js';
import { withFields } from '../model/index.js';

const REFERENCE = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

interface FileContext {
  env: NodeJS.ProcessEnv;
  /** The file as the operator named it: messages show this, never a resolved absolute path. */
  name: string;
  sources: Map<string, string>;
  /** Every unset `${VAR}` without a default, so one start-up reports all of them at once. */
  missing: Array<{ key: string; variable: string }>;
}

/**
 * `${VAR}` / `${VAR:-default}` (default also when VAR is empty); `$${VAR}` stays literal. The variables whose
 * values went in are added to `used`.
 */
function expand(text: string, where: string, ctx: FileContext, used: string[]): string {
  return text.replace(REFERENCE, (whole, escaped: string | undefined, name: string, fallback: string | undefined) => {
    if (escaped) return whole.slice(1);
    const value = ctx.env[name];
    if (value !== undefined && value !== '') {
      used.push(name);
      return value;
    }
    if (fallback !== undefined) return fallback;
    ctx.missing.push({ key: where, variable: name });
    return '';
  });
}

/** Where a value a `${VAR}` gave was set, as a message tells it after "from". */
function referencedSource(used: string[], file: string): string {
  const variables = [...new Set(used)];
  return `${variables.length > 1 ? 'environment variables' : 'environment variable'} ${variables.join(', ')}, referenced in ${file}`;
}

/** Normalises `_` to `-` in the keys of schema objects (not of free-form records) and expands `${VAR}`. */
function normalise(value: unknown, node: SchemaNode | undefined, keys: KeyPath, ctx: FileContext): unknown {
  if (typeof value === 'string') {
    const used: string[] = [];
    const expanded = expand(value, dotted(keys), ctx, used);
    // The operator looks for a bad value where they set it: the variable, not the file's key.
    const source = used.length > 0 ? referencedSource(used, ctx.name) : ctx.name;
    ctx.sources.set(dotted(keys), source);
    return expanded === value ? value : coerce(expanded, node, used.length > 0 ? `${dotted(keys)} (from ${source})` : dotted(keys));
  }
  if (Array.isArray(value)) return value.map((item, i) => normalise(item, childOf(node, '0'), [...keys, String(i)], ctx));
  if (!isPlainObject(value)) {
    ctx.sources.set(dotted(keys), ctx.name);
    return value;
  }
  const isSchemaObject = kindOf(node) === 'object';
  const out: Tree = {};
  for (const [rawKey, item] of Object.entries(value)) {
    const key = isSchemaObject ? rawKey.replace(/_/g, '-') : rawKey;
    if (key in out) throw new ConfigError(`${dotted([...keys, key])}: given twice in ${ctx.name} (as dashes and underscores)`);
    out[key] = normalise(item, childOf(node, key), [...keys, key], ctx);
  }
  return out;
}

function missingVariables(missing: FileContext['missing'], name: string): ConfigError {
  const lines = missing.map(
    ({ key, variable }) =>
      `  - ${key}: environment variable ${variable} is not set (referenced in ${name}; write \${${variable}:-default} to give a default)`,
  );
  return new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}

/** The YAML file at `file` (named `name` in messages) as a config tree. */
export async function fileLayer(file: string, name: string, ctx: { env: NodeJS.ProcessEnv; sources: Map<string, string> }): Promise<Tree> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError(`config file not found: ${name}`);
    if (code === 'EISDIR') throw new ConfigError(`config file ${name} is a directory`);
    throw new ConfigError(`cannot read config file ${name} (${code === 'EACCES' ? 'permission denied' : (code ?? 'error')})`);
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (error) {
    // Position and code only: the yaml message quotes the offending line, which may hold a secret.
    if (error instanceof YAMLError) {
      const at = error.linePos?.[0];
      throw new ConfigError(`${name}: invalid YAML${at ? ` at line ${at.line}, column ${at.col}` : ''} (${error.code})`);
    }
    throw new ConfigError(`${name}: invalid YAML`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isPlainObject(parsed)) throw new ConfigError(`${name}: the top level must be a mapping of configuration keys`);
  const full: FileContext = withFields(ctx, { name, missing: [] });
  const tree = normalise(parsed, ROOT, [], full) as Tree;
  if (full.missing.length > 0) throw missingVariables(full.missing, name);
  return tree;
}
