export { loadMappingProfile, clearMappingProfileCache, defaultMappingsDir, findMappingsDir, mappingProfileNames } from './load.js';
export type { MappingOverrides, LoadMappingOptions, TableName } from './load.js';
export type { MappingProfile } from './profile.js';
export { TABLES, TABLE_NAMES } from './tables.js';
export { V1_METHODS, V1Method, V1_ONLY_METHODS, V025_PART_SOURCES } from './vocabulary.js';
export type { V025PartKind, V025PartSource } from './vocabulary.js';
