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

/** An agent card's own path (1.0's agent-card.json, 0.2.5's agent.json), at the end of a URL's path. */
export const CARD_PATH = /\/\.well-known\/agent(?:-card)?\.json\/?$/;

/** The base an agent card's URL sits under (`http://agent:8080/.well-known/agent.json` → `http://agent:8080`), credentials left out. */
function baseUnderCard(url: string): string {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname.replace(CARD_PATH, '')}`;
}

/** A URL with a query or fragment is refused for that already (BaseUrl): one message is enough. */
const namesACard = (url: unknown): boolean =>
  typeof url === 'string' && !/[?#]/.test(url) && URL.canParse(url) && CARD_PATH.test(new URL(url).pathname);

/**
 * `upstream.url`: the base the agent's card is under, not the card's own URL, which is what an agent's
 * docs, a browser or Bailian's console show. Taken as given, the gateway would read the card at
 * `…/agent-card.json/.well-known/agent-card.json` and log a 404 for a path the operator never typed;
 * refused at start instead, naming the URL to give.
 */
export const UpstreamUrl = BaseUrl('; credentials go in upstream.auth').refine((url) => !namesACard(url), {
  error: (issue) =>
    `this is the agent card's URL; give the agent's base URL, ${baseUnderCard(issue.input as string)} (the gateway reads the card at <url>/.well-known/agent-card.json or agent.json itself)`,
});
