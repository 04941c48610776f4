import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { buildProfile, type MappingProfile, type MergedTables } from './profile.js';
import { BASE_FILES, TABLES, TABLE_NAMES, isTableName, type TableName } from './tables.js';

/** Operator overrides, as in config `bailian.mappings`: table name → key → value. */
export type MappingOverrides = Record<string, Record<string, string | number>>;

export interface LoadMappingOptions {
  /** The mappings folder; default: `mappings/` at the package root. Tests point it elsewhere. */
  dir?: string;
}

const PROFILE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const MAX_EXTENDS_DEPTH = 8;

const isComment = (key: string): boolean => key.startsWith('$');

const TableLayer = z.record(z.string(), z.record(z.string(), z.unknown()));
const ProfileFile = z.strictObject({
  $comment: z.union([z.string(), z.array(z.string())]).optional(),
  extends: z.string().optional(),
  tables: TableLayer.optional(),
});

/** The package's `mappings/` folder, found by walking up from this module (works from src/ and dist/). */
export function defaultMappingsDir(): string {
  return findMappingsDir(dirname(fileURLToPath(import.meta.url)));
}

/** The profiles there are to name (`bailian.profile`): the files of `<dir>/profiles`, by name. */
export function mappingProfileNames(dir: string = defaultMappingsDir()): string[] {
  return readdirSync(join(dir, 'profiles'))
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

/** Walk up from `start` to the first folder holding both package.json and mappings/profiles. */
export function findMappingsDir(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'mappings', 'profiles'))) {
      return join(dir, 'mappings');
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('The mappings folder (mappings/profiles) was not found above the a2a-bridge modules');
    dir = parent;
  }
}

function readJson(dir: string, file: string): unknown {
  const path = join(dir, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`mappings/${file}: cannot be read`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`mappings/${file}: not valid JSON (${(error as Error).message})`);
  }
}

function fail(source: string, detail: string): never {
  throw new Error(`${source}: ${detail}`);
}

/** Validate one layer of entries and write them over `target`. Keys starting with `$` are comments. */
function applyLayer(target: MergedTables, layer: Record<string, Record<string, unknown>>, source: string, onlyFile?: string): void {
  for (const [tableName, entries] of Object.entries(layer)) {
    if (isComment(tableName)) continue;
    if (!isTableName(tableName)) fail(source, `unknown table '${tableName}' (known: ${TABLE_NAMES.join(', ')})`);
    const spec = TABLES[tableName];
    if (onlyFile && spec.file !== onlyFile) fail(source, `table '${tableName}' belongs in mappings/${spec.file}`);
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
      fail(source, `${tableName}: must be an object of entries`);
    }
    for (const [key, raw] of Object.entries(entries)) {
      if (isComment(key)) continue;
      if (!(spec.keys as readonly string[]).includes(key)) {
        fail(source, `${tableName}.${key}: unknown key (known: ${spec.keys.join(', ')})`);
      }
      const parsed = spec.value(key).safeParse(raw);
      if (!parsed.success) {
        const reason = parsed.error.issues[0]?.message ?? 'invalid value';
        fail(source, `${tableName}.${key}: invalid value ${JSON.stringify(raw)} (${reason})`);
      }
      target[tableName][key] = parsed.data;
    }
  }
}

function loadBase(dir: string): MergedTables {
  const tables = Object.fromEntries(TABLE_NAMES.map((name) => [name, {}])) as MergedTables;
  for (const file of BASE_FILES) {
    const parsed = TableLayer.safeParse(Object.fromEntries(Object.entries(readJson(dir, file) as object).filter(([key]) => !isComment(key))));
    if (!parsed.success) fail(`mappings/${file}`, 'every top-level key must be a table of entries');
    applyLayer(tables, parsed.data, `mappings/${file}`, file);
  }
  return tables;
}

/** Profile chain, base-most first: [a2a-0.2.5, bailian]. */
function profileChain(dir: string, name: string): { name: string; file: string; tables: Record<string, Record<string, unknown>> }[] {
  const chain: { name: string; file: string; tables: Record<string, Record<string, unknown>> }[] = [];
  let next: string | undefined = name;
  while (next !== undefined) {
    if (!PROFILE_NAME.test(next)) throw new Error(`mapping profile '${next}': invalid name (letters, digits, . _ - only)`);
    if (chain.some((entry) => entry.name === next) || chain.length >= MAX_EXTENDS_DEPTH) {
      throw new Error(`mapping profile '${name}': 'extends' forms a cycle or is too deep at '${next}'`);
    }
    const file = `profiles/${next}.json`;
    if (!existsSync(join(dir, file))) throw new Error(`mapping profile '${next}': mappings/${file} does not exist`);
    const parsed = ProfileFile.safeParse(readJson(dir, file));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail(`mappings/${file}`, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid profile'}`);
    }
    chain.unshift({ name: next, file, tables: parsed.data.tables ?? {} });
    next = parsed.data.extends;
  }
  return chain;
}

function checkComplete(tables: MergedTables, profile: string): void {
  for (const name of TABLE_NAMES) {
    const spec = TABLES[name];
    const missing = spec.required.filter((key) => tables[name][key] === undefined);
    if (missing.length > 0) {
      throw new Error(`mapping profile '${profile}': mappings/${spec.file}: ${name} has no entry for ${missing.join(', ')}`);
    }
  }
}

const cache = new Map<string, MappingProfile>();

function cacheKey(dir: string, name: string, overrides: MappingOverrides | undefined): string {
  const sorted = Object.keys(overrides ?? {})
    .sort()
    .map((table) => [table, Object.entries(overrides?.[table] ?? {}).sort(([a], [b]) => a.localeCompare(b))]);
  return JSON.stringify([dir, name, sorted]);
}

/**
 * Load a named profile from mappings/: base tables → the profile's `extends` chain → operator
 * overrides (one entry at a time, no table copying). Everything is validated up front; a bad file,
 * key or value throws an Error naming the file, the table.key and the value. Results are cached.
 */
export function loadMappingProfile(name: string, overrides?: MappingOverrides, options: LoadMappingOptions = {}): MappingProfile {
  const dir = options.dir ?? defaultMappingsDir();
  const key = cacheKey(dir, name, overrides);
  const cached = cache.get(key);
  if (cached) return cached;

  const tables = loadBase(dir);
  for (const layer of profileChain(dir, name)) applyLayer(tables, layer.tables, `mappings/${layer.file}`);
  if (overrides) {
    const parsed = TableLayer.safeParse(overrides);
    if (!parsed.success) fail('bailian.mappings (operator override)', 'must map table names to objects of entries');
    applyLayer(tables, parsed.data, 'bailian.mappings (operator override)');
  }
  checkComplete(tables, name);
  const profile = buildProfile(name, tables);
  cache.set(key, profile);
  return profile;
}

/** For tests that rewrite mapping files between loads. */
export function clearMappingProfileCache(): void {
  cache.clear();
}

export type { TableName };
