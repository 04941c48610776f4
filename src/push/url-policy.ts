import { promises as dns } from 'node:dns';
import { A2AError, ErrorCode } from '../model/index.js';
import { assertVisibleAscii } from './headers.js';
import { ipFamily, isPublicAddress } from './ip-ranges.js';

export interface CallbackPolicyOptions {
  /** `push-allow-private`: the operator accepts callbacks to private, local and metadata hosts. */
  allowPrivate: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves every address of a host name; injectable so tests never touch real DNS. */
export type LookupFunction = (hostname: string) => Promise<ResolvedAddress[]>;

export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

const MESSAGE_SCHEME = 'A2A push callback URL must be http or https';
const MESSAGE_PRIVATE = 'A2A push callback URL must not target private or local hosts';
const MESSAGE_RESOLVES_PRIVATE = 'A2A push callback URL must not resolve to private or local hosts';
const MAX_URL_LENGTH = 2048;

/** Cloud metadata services reachable by name (their IPs are covered by the address ranges). */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.tencentyun.com',
  'instance-data',
  'instance-data.ec2.internal',
]);

/**
 * Names that only mean something inside a network: `localhost` (RFC 6761), mDNS `.local`, ICANN's
 * private-use `.internal`, `home.arpa` (RFC 8375), `localdomain`. Single-label names are resolved
 * through the resolver's search domains, i.e. to intranet hosts, so they are refused as well.
 */
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'localdomain'];

function isLocalName(host: string): boolean {
  if (METADATA_HOSTS.has(host)) return true;
  if (!host.includes('.')) return true;
  return LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`));
}

/** The URL's host without IPv6 brackets or a trailing root dot, lower-cased (WHATWG already lower-cases). */
export function callbackHost(url: URL): string {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return host.replace(/\.+$/, '');
}

/**
 * Static checks of a callback URL, run when a config is stored and again before each dispatch.
 * WHATWG parsing already canonicalises IPv4 literals (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`
 * all become `127.0.0.1`) and compresses IPv6 (`[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`),
 * so the address checks see one canonical form.
 */
export function validateCallbackUrl(raw: string, options: CallbackPolicyOptions): URL {
  if (typeof raw !== 'string' || raw.length > MAX_URL_LENGTH) {
    throw A2AError.invalidParams('A2A push callback URL must be a URL of at most 2048 characters', [
      { field: 'url', description: 'invalid callback URL' },
    ]);
  }
  // WHATWG parsing drops CR, LF and tabs and escapes spaces: the raw text is checked, as it is stored and echoed.
  assertVisibleAscii('url', raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw A2AError.invalidParams('A2A push callback URL is not a valid URL', [{ field: 'url', description: 'invalid URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw A2AError.invalidParams(MESSAGE_SCHEME, [{ field: 'url', description: MESSAGE_SCHEME }]);
  }
  // Userinfo would be stored and logged in clear; credentials belong in `authentication`.
  if (url.username !== '' || url.password !== '') {
    throw A2AError.invalidParams('A2A push callback URL must not contain credentials', [{ field: 'url', description: 'credentials in URL' }]);
  }
  const host = callbackHost(url);
  if (host === '') throw A2AError.invalidParams(MESSAGE_SCHEME, [{ field: 'url', description: 'missing host' }]);
  if (!options.allowPrivate) {
    const literal = ipFamily(host) !== undefined;
    if (literal ? !isPublicAddress(host) : isLocalName(host)) {
      throw A2AError.invalidParams(MESSAGE_PRIVATE, [{ field: 'url', description: MESSAGE_PRIVATE }]);
    }
  }
  return url;
}

/** DNS failed or timed out: nothing was contacted, and a later attempt may succeed. */
export class CallbackResolutionError extends A2AError {
  constructor() {
    super(ErrorCode.InvalidParams, 'A2A push callback URL host could not be resolved');
    this.name = 'CallbackResolutionError';
  }
}

const systemLookup: LookupFunction = (hostname) => dns.lookup(hostname, { all: true });

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // Nobody waits for it any more: its failure must not be an unhandled rejection (which ends the process).
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The address a delivery must connect to. Every resolved address has to pass (a name with one
 * public and one private record is refused: the resolver could hand out either), and the caller
 * connects to the returned address, not to a fresh lookup, so DNS rebinding has no window.
 * DNS errors fail closed with CallbackResolutionError.
 */
export async function resolveAndPin(
  url: URL,
  options: CallbackPolicyOptions & { lookup?: LookupFunction; signal?: AbortSignal },
): Promise<PinnedAddress> {
  const host = callbackHost(url);
  const literalFamily = ipFamily(host);
  if (literalFamily !== undefined) {
    if (!options.allowPrivate && !isPublicAddress(host)) throw A2AError.invalidParams(MESSAGE_PRIVATE);
    return { address: host, family: literalFamily };
  }
  // A caller already gone (a Bailian user who left while an image's redirect was read) starts no lookup.
  if (options.signal?.aborted) throw new CallbackResolutionError();
  let addresses: ResolvedAddress[];
  try {
    addresses = await abortable((options.lookup ?? systemLookup)(host), options.signal);
  } catch {
    throw new CallbackResolutionError();
  }
  const usable = addresses.filter((entry) => ipFamily(entry.address) !== undefined);
  if (usable.length === 0 || usable.length !== addresses.length) throw new CallbackResolutionError();
  if (!options.allowPrivate && !usable.every((entry) => isPublicAddress(entry.address))) {
    throw A2AError.invalidParams(MESSAGE_RESOLVES_PRIVATE);
  }
  const first = usable[0] as ResolvedAddress;
  return { address: first.address, family: ipFamily(first.address) as 4 | 6 };
}
