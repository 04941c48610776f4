/**
 * The one place that knows the other A2A versions, and the entry every importer uses: one folder per
 * version, each translating its wire shapes (src/protocol/<version>) to and from the 1.0 model.
 * v025/ is 0.2.5 ⇄ 1.0 (also 0.3's JSON-RPC binding, which keeps 0.2.5's shapes); v03/ is what 0.3
 * adds: its HTTP+JSON binding and its card fields. Everything else speaks 1.0.
 */
export { defined, joinText, systemClock, type Clock } from './common.js';
export { toRfc3339Utc } from './timestamps.js';
export { answeredTask, openingTaskOf } from './task-stream.js';
export { ENCODED_AGENT_ID_PREFIX, agentIdFromV1, agentIdToV1, type AgentIdKind } from './agent-ids.js';
export * from './agent-id-fields.js';
export * from './v025/index.js';
export * from './v03/index.js';
