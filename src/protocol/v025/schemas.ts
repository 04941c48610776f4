/** Zod schemas of the A2A 0.2.5 wire objects (JSON-RPC binding). */
export * from './enums.js';
export * from './parts.js';
export * from './objects.js';
export * from './requests.js';
export * from './card.js';
