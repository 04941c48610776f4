/**
 * What A2A 0.3 adds to the 0.2.5 ⇄ 1.0 translation (../v025, which 0.3's JSON-RPC binding shares):
 * the card's interface fields both ways (card.ts), and the HTTP+JSON binding (rest.ts, stream.ts,
 * cardFromV03Rest).
 */
export {
  V03_CARD_INTERFACE_FIELDS,
  cardFromV03Rest,
  interfacesFromV03CardFields,
  transportName,
  v03CardFields,
  type V03CardInterface,
} from './card.js';
export { sendRequestToV03, sendResponseFromV03, taskFromV03, taskPushConfigFromV03, taskPushConfigToV03 } from './rest.js';
export { createV03RestToV1StreamTranslator } from './stream.js';
