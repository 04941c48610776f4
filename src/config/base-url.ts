import { z } from 'zod';

/** An http(s) URL. */
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/**
 * An http(s) URL the gateway appends paths to (`upstream.url`: `/.well-known/agent-card.json`, the
 * agent's routes; `public-url`: the cards' and the JWKS's), so it takes no query or fragment: one would
 * stand before every path (`/?api_key=X/.well-known/agent-card.json`), and no A2A agent is addressed by
 * one. Credentials the agent wants go in `upstream.auth` (a header), never in the URL. `hint` ends the message.
 */
export const BaseUrl = (hint = '') =>
  HttpUrl.refine((url) => !/[?#]/.test(url), `must not have a query (?…) or fragment (#…): the gateway appends paths to it${hint}`);
