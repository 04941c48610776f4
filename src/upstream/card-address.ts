import { withFields } from '../model/index.js';
import type { WarningLogger } from '../throttled-warnings.js';
import { isWildcardHost } from '../wildcard-host.js';

/**
 * The address an agent's card gives, as the gateway can reach it. A card names the agent as the agent sees
 * itself: bound to every interface (`0.0.0.0`, iac-code), or on `localhost` (the a2a-js samples' card
 * `http://localhost:41241/`) while the gateway reaches it through a port mapping or a service name
 * (`upstream.url: http://agent-host:8080`). Taken as written, every call went to the gateway's own machine
 * and failed "Upstream agent is unavailable", though the card itself was read at `upstream.url`.
 */

/**
 * Told when a card's address is replaced: what the card said, what is called instead, and why. It carries the
 * origins the operator lets a card name (`upstream.card-origins`) so that every client's card-url path, which
 * hands it through, applies them without a parameter of its own.
 */
export type CardAddressNotice = ((advertised: string, used: string, why?: CardAddressChange) => void) & {
  readonly allowedOrigins?: readonly string[];
};

/**
 * `loopback`: the card's own machine, not the gateway's; `elsewhere`: an origin the operator did not name;
 * `other-host`: a gRPC address on a host the operator did not name; `socket`: a gRPC unix socket, not the agent's;
 * `plaintext`: a plaintext gRPC address of a card read over https, which the operator did not name.
 */
export type CardAddressChange = 'loopback' | 'elsewhere' | 'other-host' | 'socket' | 'plaintext';

/**
 * A host only the machine itself reaches: `localhost` (and `*.localhost`, a trailing dot too), 127.0.0.0/8,
 * `::1`, and 127.0.0.0/8 mapped into IPv6 (`[::ffff:127.0.0.1]`, which a URL writes `[::ffff:7f00:1]`).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  const ipv4 = host.replace(/^::ffff:(?=\d)/, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(ipv4) ||
    /^::ffff:7f[\da-f]{2}:[\da-f]{1,4}$/.test(host)
  );
}

/** `upstream.url`'s host names the gateway's own machine: loopback, or every interface (`0.0.0.0`, `[::]`) as bound. */
const onGatewayMachine = (hostname: string): boolean => isLoopbackHost(hostname) || isWildcardHost(hostname);

/**
 * `url` made reachable from here, in place. A wildcard host becomes the host the card came from (the card's
 * scheme kept). A loopback host, when `upstream.url` (`baseUrl`) is not on the gateway's machine itself
 * (loopback, or a wildcard host), becomes `upstream.url`'s origin, the card's path kept: that agent is not on
 * the gateway's machine, so its `localhost` is not the gateway's; `notice` is told.
 * Then any other origin than `upstream.url`'s, unless `notice.allowedOrigins` lists it, becomes upstream.url's
 * too (`notice` told): the gateway sends upstream.auth's credentials and every caller's words there, and
 * whoever writes the card (or alters it on a plain-http path) must not choose where they go.
 */
export function reachableCardUrl(url: URL, baseUrl: string, notice?: CardAddressNotice): URL {
  const base = new URL(baseUrl);
  const advertised = url.toString();
  if (isWildcardHost(url.hostname)) {
    url.host = base.host;
  } else if (isLoopbackHost(url.hostname) && !onGatewayMachine(base.hostname)) {
    toOriginOf(base, url);
    notice?.(advertised, url.toString(), 'loopback');
  }
  if (url.origin !== base.origin && !notice?.allowedOrigins?.includes(url.origin)) {
    toOriginOf(base, url);
    notice?.(advertised, url.toString(), 'elsewhere');
  }
  return url;
}

function toOriginOf(base: URL, url: URL): void {
  url.protocol = base.protocol;
  url.hostname = base.hostname;
  url.port = base.port; // '' (the scheme's own) too: setting `host` alone keeps the card's port
}

/** A gRPC address: the host (as a URL's hostname writes it, `[::1]` bracketed), the port, and whether over TLS. */
export interface HostAddress {
  hostname: string;
  port: string;
  tls: boolean;
}

export const hostPort = (address: HostAddress): string => `${address.hostname}:${address.port}`;

/** The origin `upstream.card-origins` writes for `address`: `grpc://` read as `http://`, `grpcs://` as `https://`. */
const originOf = (address: HostAddress): string => new URL(`${address.tls ? 'https' : 'http'}://${hostPort(address)}`).origin;

/**
 * `address` (a card's GRPC interface, written `advertised`) made reachable from here, held to upstream.url's
 * host (`baseUrl`) as reachableCardUrl holds an HTTP interface to its origin. An agent serves gRPC on a port of
 * its own beside its card's (`:8080` and `:50051`), so any port of upstream.url's host is followed. A wildcard
 * host becomes upstream.url's; so does a loopback one while upstream.url is not on the gateway's machine, and
 * any other host unless `notice.allowedOrigins` lists the address (`grpc://host:port`, `grpcs://` over TLS),
 * `notice` told. The card's port and TLS are kept, but for plaintext named by a card read over https (overTlsLikeTheCard).
 */
export function reachableCardHost(address: HostAddress, advertised: string, baseUrl: string, notice?: CardAddressNotice): HostAddress {
  return overTlsLikeTheCard(heldToBaseHost(address, advertised, baseUrl, notice), advertised, baseUrl, notice);
}

function heldToBaseHost(address: HostAddress, advertised: string, baseUrl: string, notice?: CardAddressNotice): HostAddress {
  const base = new URL(baseUrl);
  const atBase = withFields(address, { hostname: base.hostname });
  if (isWildcardHost(address.hostname)) return atBase;
  if (isLoopbackHost(address.hostname) && !onGatewayMachine(base.hostname)) {
    notice?.(advertised, hostPort(atBase), 'loopback');
    return atBase;
  }
  if (address.hostname === base.hostname || notice?.allowedOrigins?.includes(originOf(address))) return address;
  notice?.(advertised, hostPort(atBase), 'other-host');
  return atBase;
}

/**
 * A card read over https (`baseUrl`) that names a plaintext gRPC address (`grpc://`, `http://`) is dialled over TLS,
 * `notice` told, unless `notice.allowedOrigins` lists the address as `grpc://host:port`: the card's words over TLS
 * must not send upstream.auth's credentials and every caller's words across the network in clear.
 */
function overTlsLikeTheCard(address: HostAddress, advertised: string, baseUrl: string, notice?: CardAddressNotice): HostAddress {
  if (address.tls || new URL(baseUrl).protocol !== 'https:' || notice?.allowedOrigins?.includes(originOf(address))) return address;
  notice?.(advertised, hostPort(address), 'plaintext');
  return withFields(address, { tls: true });
}

/**
 * Whether a card's gRPC unix socket (written `advertised`) may be dialled: a socket is on the gateway's machine,
 * the agent's only when upstream.url (`baseUrl`) is too; `notice` is told when not.
 */
export function cardSocketAllowed(advertised: string, baseUrl: string, notice?: CardAddressNotice): boolean {
  if (onGatewayMachine(new URL(baseUrl).hostname)) return true;
  notice?.(advertised, '', 'socket');
  return false;
}

const WHY: Record<CardAddressChange, string> = {
  loopback: "the agent's card names a loopback address the gateway cannot reach it at; calling upstream.url's host instead",
  elsewhere:
    "the agent's card names another origin than upstream.url; calling upstream.url's origin instead (list the card's origin in upstream.card-origins to allow it)",
  'other-host':
    "the agent's card names a gRPC address on another host than upstream.url's; calling upstream.url's host at the card's port instead (list it in upstream.card-origins as grpc://host:port, grpcs:// for TLS, to allow it)",
  socket: "the agent's card names a gRPC unix socket, on the gateway's machine while upstream.url is not; not called",
  plaintext:
    "the agent's card, read over https, names a plaintext gRPC address; dialling it over TLS instead, so that credentials and messages do not cross the network in clear (list it in upstream.card-origins as grpc://host:port to allow plaintext)",
};

/**
 * A notice that warns `logger` once per address a card gave and change made to it (a refreshed card says it again),
 * letting the card name `allowedOrigins` (`upstream.card-origins`; `grpc://`/`grpcs://` ones as `http://`/`https://`).
 */
export function cardAddressWarnings(logger: WarningLogger | undefined, upstream: string, allowedOrigins: readonly string[] = []): CardAddressNotice {
  const told = new Set<string>();
  const notice = (advertised: string, used: string, why: CardAddressChange = 'loopback') => {
    if (!logger || told.has(`${why} ${advertised}`)) return;
    told.add(`${why} ${advertised}`);
    logger.warn({ upstream, advertised, ...(used ? { used } : {}) }, WHY[why]);
  };
  const origins = allowedOrigins.map((origin) => new URL(origin.replace(/^grpc(s?):/i, 'http$1:')).origin);
  return Object.assign(notice, { allowedOrigins: origins });
}
