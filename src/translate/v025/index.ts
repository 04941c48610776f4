/**
 * A2A 0.2.5 ⇄ 1.0, pure, driven by a MappingProfile (mappings/ + src/mappings) wherever a table is
 * involved. 0.3's JSON-RPC binding keeps these shapes, so the same functions serve a 0.3 JSON-RPC
 * agent; what 0.3 adds is in ../v03.
 */
export { partToV1, partToV025, toStandardBase64, PART_STASH_KEY, DATA_PART_COMPAT_KEY } from './parts.js';
export { messageToV1, messageToV025 } from './messages.js';
export { statusToV1, statusToV025, artifactToV1, artifactToV025, taskToV1, taskToV025, type ToV025Options, type TaskToV025Options } from './tasks.js';
export {
  statusUpdateToV1,
  statusUpdateToV025,
  artifactUpdateToV1,
  artifactUpdateToV025,
  streamEventToV1,
  streamResponseToV025,
  type StatusUpdateToV025Options,
} from './events.js';
export * from './requests.js';
export { sendResultToV1, sendResponseToV025, pushConfigListToV1, pushConfigListToV025, deleteResultToV1, deleteResultToV025 } from './results.js';
export { errorToV025, errorFromV025, type V025ErrorObject } from './errors.js';
export { cardToV025, cardFromV025, type CardToV025Options, type SkillOverride } from './cards.js';
export { rewriteV025Card, type V025CardRewriteOptions } from './card-rewrite.js';
export { securitySchemeToV1, securityToV1 } from './security.js';
export { BAILIAN_EXTENSION_FIELDS, BAILIAN_PROTOCOL_EXTENSION_URIS, commandsIn, nestExtensionMetadata, withoutCommands } from './bailian.js';
export { acceptsMediaType, imagesAsParts, type BailianImages } from './bailian-images.js';
export { createV025ToV1StreamTranslator, type V025ToV1StreamOptions, type V025ToV1StreamTranslator } from './stream.js';
export { requestToV1, requestToV025, resultToV1 } from './rpc.js';
