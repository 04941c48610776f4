export * from './schemas.js';
export * from './parse.js';
export * from './well-formed.js';
