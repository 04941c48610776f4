import { z } from 'zod';
import {
  Role,
  TASK_STATES,
  TaskState,
  V025_ERROR_CODES,
  V025_METHODS,
  V025_PART_SOURCES,
  V025_TASK_STATES,
  V025ErrorCodeValue,
  V025Method,
  V025Role,
  V025TaskState,
  V1_METHODS,
  V1_ONLY_METHODS,
  V1_PART_KINDS,
  V1_ROLES,
  V1_ERROR_CODES,
  V1ErrorCodeValue,
  V1Method,
  V025_ROLES,
} from './vocabulary.js';

/** What one named table may contain, and which file of mappings/ holds its base entries. */
export interface TableSpec {
  readonly file: string;
  readonly keys: readonly string[];
  /** Keys that must have an entry once every layer is merged. */
  readonly required: readonly string[];
  readonly value: (key: string) => z.ZodType<string | number, unknown>;
}

const codes = (list: readonly number[]): string[] => list.map(String);
const fixed = (schema: z.ZodType<string | number, unknown>) => () => schema;

const PART_KINDS_TO_V025: Record<string, z.ZodType<string, unknown>> = {
  text: z.literal('text'),
  raw: z.literal('file'),
  url: z.enum(['file', 'text']),
  data: z.enum(['data', 'text']),
};
const PART_KINDS_FROM_V025: Record<string, z.ZodType<string, unknown>> = {
  text: z.literal('text'),
  'file-bytes': z.literal('raw'),
  'file-uri': z.literal('url'),
  data: z.literal('data'),
};
const OPTIONS: Record<string, z.ZodType<string, unknown>> = {
  'default-skill-tag': z.string().min(1).max(64),
  'direct-message-as': z.enum(['message', 'task']),
  'reply-artifacts': z.enum(['single', 'own']),
  'render-parts': z.enum(['text', 'native']),
};

const toV025Methods = V1_METHODS.filter((method) => !V1_ONLY_METHODS.includes(method));

export const TABLES = {
  'states-to-v025': { file: 'states.json', keys: TASK_STATES, required: TASK_STATES, value: fixed(V025TaskState) },
  'states-from-v025': { file: 'states.json', keys: V025_TASK_STATES, required: V025_TASK_STATES, value: fixed(TaskState) },
  'roles-to-v025': { file: 'roles.json', keys: V1_ROLES, required: V1_ROLES, value: fixed(V025Role) },
  'roles-from-v025': { file: 'roles.json', keys: V025_ROLES, required: V025_ROLES, value: fixed(Role) },
  'methods-to-v025': { file: 'methods.json', keys: toV025Methods, required: toV025Methods, value: fixed(V025Method) },
  'methods-from-v025': { file: 'methods.json', keys: V025_METHODS, required: V025_METHODS, value: fixed(V1Method) },
  'errors-to-v025': {
    file: 'errors.json',
    keys: codes(V1_ERROR_CODES),
    required: codes(V1_ERROR_CODES),
    value: fixed(V025ErrorCodeValue),
  },
  'errors-from-v025': {
    file: 'errors.json',
    keys: codes(V025_ERROR_CODES),
    required: codes(V025_ERROR_CODES),
    value: fixed(V1ErrorCodeValue),
  },
  'error-messages-v025': {
    file: 'errors.json',
    keys: codes(V025_ERROR_CODES),
    required: codes(V025_ERROR_CODES),
    value: fixed(z.string().min(1).max(200)),
  },
  'part-kinds-to-v025': {
    file: 'part-kinds.json',
    keys: V1_PART_KINDS,
    required: V1_PART_KINDS,
    value: (key) => PART_KINDS_TO_V025[key] ?? z.never(),
  },
  'part-kinds-from-v025': {
    file: 'part-kinds.json',
    keys: V025_PART_SOURCES,
    required: V025_PART_SOURCES,
    value: (key) => PART_KINDS_FROM_V025[key] ?? z.never(),
  },
  options: {
    file: 'options.json',
    keys: Object.keys(OPTIONS),
    required: Object.keys(OPTIONS),
    value: (key) => OPTIONS[key] ?? z.never(),
  },
} as const satisfies Record<string, TableSpec>;

export type TableName = keyof typeof TABLES;
export const TABLE_NAMES = Object.keys(TABLES) as TableName[];
export const isTableName = (name: string): name is TableName => Object.hasOwn(TABLES, name);
/** The base files, in a stable order. */
export const BASE_FILES: readonly string[] = [...new Set(TABLE_NAMES.map((name) => TABLES[name].file))];
