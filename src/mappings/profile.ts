import type { PartKind, Role, TaskState } from '../model/index.js';
import type { V025Method, V025Role, V025TaskState } from '../protocol/v025/enums.js';
import type { TableName } from './tables.js';
import type { V025PartKind, V025PartSource, V1Method } from './vocabulary.js';

/**
 * One mapping profile, fully merged and validated: plain read-only lookup tables that the
 * translators consult. Nothing here is optional: the loader has proven every entry exists.
 */
export interface MappingProfile {
  readonly name: string;
  readonly statesToV025: Readonly<Record<TaskState, V025TaskState>>;
  readonly statesFromV025: Readonly<Record<V025TaskState, TaskState>>;
  readonly rolesToV025: Readonly<Record<Role, V025Role>>;
  readonly rolesFromV025: Readonly<Record<V025Role, Role>>;
  /** ListTasks (1.0-only) has no entry. */
  readonly methodsToV025: Readonly<Partial<Record<V1Method, V025Method>>>;
  readonly methodsFromV025: Readonly<Record<V025Method, V1Method>>;
  readonly errorsToV025: ReadonlyMap<number, number>;
  readonly errorsFromV025: ReadonlyMap<number, number>;
  readonly errorMessagesV025: ReadonlyMap<number, string>;
  readonly partKindsToV025: Readonly<Record<PartKind, V025PartKind>>;
  readonly partKindsFromV025: Readonly<Record<V025PartSource, PartKind>>;
  readonly options: Readonly<{
    defaultSkillTag: string;
    directMessageAs: 'message' | 'task';
    replyArtifacts: 'single' | 'own';
    renderParts: 'text' | 'native';
  }>;
}

export type MergedTables = Record<TableName, Record<string, string | number>>;

const numberMap = <V extends string | number>(table: Record<string, string | number>): ReadonlyMap<number, V> =>
  new Map(Object.entries(table).map(([key, value]) => [Number(key), value as V]));

const frozen = <T extends object>(value: T): Readonly<T> => Object.freeze({ ...value });

/** Shape validated tables into the profile object (the loader validated every value already). */
export function buildProfile(name: string, tables: MergedTables): MappingProfile {
  const t = tables as Record<TableName, Record<string, never>>;
  return Object.freeze({
    name,
    statesToV025: frozen(t['states-to-v025']),
    statesFromV025: frozen(t['states-from-v025']),
    rolesToV025: frozen(t['roles-to-v025']),
    rolesFromV025: frozen(t['roles-from-v025']),
    methodsToV025: frozen(t['methods-to-v025']),
    methodsFromV025: frozen(t['methods-from-v025']),
    errorsToV025: numberMap<number>(tables['errors-to-v025']),
    errorsFromV025: numberMap<number>(tables['errors-from-v025']),
    errorMessagesV025: numberMap<string>(tables['error-messages-v025']),
    partKindsToV025: frozen(t['part-kinds-to-v025']),
    partKindsFromV025: frozen(t['part-kinds-from-v025']),
    options: Object.freeze({
      defaultSkillTag: String(tables.options['default-skill-tag']),
      directMessageAs: tables.options['direct-message-as'] === 'task' ? 'task' : 'message',
      replyArtifacts: tables.options['reply-artifacts'] === 'single' ? 'single' : 'own',
      renderParts: tables.options['render-parts'] === 'text' ? 'text' : 'native',
    }),
  });
}
