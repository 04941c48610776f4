/**
 * A2A 0.3's wire shapes, as the gateway reads and writes them: what 0.3 adds to 0.2.5's JSON-RPC
 * binding (jsonrpc.ts) and its HTTP+JSON binding (rest.ts, proto JSON).
 */
export * from './jsonrpc.js';
export * from './rest.js';
