import type { GatewayConfig } from '../../config/schema.js';

// A forwarded host ends up inside the served card, so only plain host[:port] syntax is taken from it.
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

const firstValue = (header: string | null): string | undefined => {
  const value = header?.split(',')[0]?.trim();
  return value ? value : undefined;
};

/** How callers reach the gateway: `public-url`, else (only with `trust-proxy`) the forwarded headers, else the request's origin. */
export type PublicUrlConfig = Pick<GatewayConfig, 'public-url' | 'trust-proxy'>;

const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * The base URL callers use to reach the gateway, without a trailing slash: `public-url` when set;
 * else X-Forwarded-Proto/Host, but only with `trust-proxy` (anyone can send those headers); else the
 * request's own origin (its Host header).
 */
export function publicBaseUrl(request: Request, config: PublicUrlConfig): string {
  const configured = config['public-url'];
  if (configured) return withoutTrailingSlash(configured);
  const own = new URL(request.url);
  let protocol = own.protocol.slice(0, -1);
  let host = own.host;
  if (config['trust-proxy']) {
    const forwardedProto = firstValue(request.headers.get('x-forwarded-proto'))?.toLowerCase();
    if (forwardedProto === 'http' || forwardedProto === 'https') protocol = forwardedProto;
    const forwardedHost = firstValue(request.headers.get('x-forwarded-host'));
    if (forwardedHost && HOST.test(forwardedHost)) host = forwardedHost;
  }
  return `${protocol}://${host}`;
}

/** A card answer names the forwarded host when nothing else fixes the base URL: caches in between must key on it. */
export function varyByForwardedHost(response: Response, config: PublicUrlConfig): Response {
  if (config['trust-proxy'] && !config['public-url']) response.headers.set('vary', 'X-Forwarded-Proto, X-Forwarded-Host');
  return response;
}
