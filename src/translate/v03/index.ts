/** A2A 0.3 HTTP+JSON ⇄ 1.0: what the 0.3 upstream client needs. */
export { cardFromV03Rest, v03CardFields } from './card.js';
export { sendRequestToV03, sendResponseFromV03, taskFromV03, taskPushConfigFromV03, taskPushConfigToV03 } from './rest.js';
export { createV03RestToV1StreamTranslator } from './stream.js';
