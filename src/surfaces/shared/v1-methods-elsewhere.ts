import type { ServedElsewhere } from './jsonrpc-endpoint.js';
import { isV1Method } from './operations.js';

/** Where the gateway serves A2A 1.0 JSON-RPC, whatever the facade's base path (gateway-app.ts). */
export const V1_JSONRPC_PATH = '/';

/**
 * The 1.0 methods, as the facade's own endpoints (its base path, `/stream`) tell a caller who posts one there: in
 * 1.0's error form, since the caller speaks 1.0, with the header the 1.0 endpoint asks for (-32009 without it).
 */
export const V1_METHODS_ELSEWHERE: ServedElsewhere = {
  handles: isV1Method,
  servedAs:
    `an A2A 1.0 method, served by the gateway's A2A 1.0 JSON-RPC endpoint at POST ${V1_JSONRPC_PATH} ` +
    '(with the header A2A-Version: 1.0), not by this endpoint of the Bailian facade, which speaks A2A 0.2.5',
};
