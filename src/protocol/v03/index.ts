/** A2A 0.3's wire shapes (HTTP+JSON, proto JSON), as the gateway reads and writes them upstream. */
export * from './rest.js';
