import { z } from 'zod';

/**
 * A2A 0.3's JSON-RPC binding: the 0.2.5 wire (protocol/v025) plus what 0.3.0 added to it, listed
 * here. The 0.2.5 schemas accept these additions, so one reader serves both dialects: 0.3 clients
 * call a 0.2.5 facade, and a 0.3 JSON-RPC agent's card and answers are read like a 0.2.5 agent's
 * (docs/version-mapping.md, "0.3 clients"). This module imports nothing of 0.2.5: 0.2.5 builds on it.
 */

/** 0.3 moved the card from 0.2.5's `agent.json` to here (1.0 kept it). */
export const V03_AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** 0.3's JSON-RPC method for the authenticated extended card (0.2.5 serves it by HTTP GET). */
export const V03_EXTENDED_CARD_METHOD = 'agent/getAuthenticatedExtendedCard';

/** 0.3's mutual-TLS scheme: tolerated on input, never produced (0.2.5 has no form for it). */
export const V03MutualTlsSecurityScheme = z.looseObject({ type: z.literal('mutualTLS'), description: z.string().optional() });

/** 0.3's card fields beyond 0.2.5's. */
export const V03_AGENT_CARD_ADDITIONS = {
  /** JWS signatures over the card; a translated or rewritten card never keeps them (they would not verify). */
  signatures: z.array(z.unknown()).optional(),
};

/** 0.3's skill fields beyond 0.2.5's. */
export const V03_AGENT_SKILL_ADDITIONS = {
  /** Requirements as 0.2.5 writes them at card level (`[{scheme: [scopes]}]`), for this skill. */
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
};
