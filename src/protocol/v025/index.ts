export * from './schemas.js';
export * from './parse.js';
