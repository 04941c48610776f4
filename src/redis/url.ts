/**
 * The Sentinel form of a Redis URL, read into the options ioredis takes for it:
 * `redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/<master-name>[/<db>][?sentinelPassword=...&sentinelUsername=...]`.
 * `rediss+sentinel://` reaches the data nodes over TLS. Other URLs are not read here: ioredis reads
 * them itself, as it always did. Problems are plain sentences that never repeat the URL, since it may
 * hold a password.
 */
import type { RedisOptions } from 'ioredis';
import { ConfigError } from '../config/config-error.js';

export type SentinelOptions = Pick<
  RedisOptions,
  'sentinels' | 'name' | 'username' | 'password' | 'db' | 'sentinelUsername' | 'sentinelPassword' | 'tls' | 'enableTLSForSentinelMode'
>;

const SENTINEL_SCHEME = /^(rediss?)\+sentinel:\/\//i;
const TLS_SCHEME = /^rediss(?:\+sentinel)?:\/\//i;
const DEFAULT_SENTINEL_PORT = 26379;
const QUERY_KEYS = ['sentinelPassword', 'sentinelUsername'] as const;
const HOST_NAME = /^[A-Za-z0-9._-]+$/;
const IPV6 = /^\[([0-9A-Fa-f:.]+)\]$/;
const FORM = 'e.g. redis+sentinel://sentinel-1:26379,sentinel-2:26379/mymaster';

/** A Sentinel URL is read here; anything else goes to ioredis as it is. */
export function isSentinelUrl(url: string): boolean {
  return SENTINEL_SCHEME.test(url);
}

/** Whether the URL reaches its data nodes over TLS: `rediss://` or `rediss+sentinel://`. */
export function isTlsUrl(url: string): boolean {
  return TLS_SCHEME.test(url);
}

/** What is wrong with a Redis URL, or undefined. Only the Sentinel form is checked. */
export function redisUrlProblem(url: string): string | undefined {
  // ioredis reads anything but these and a socket path as a host name, and the start goes on against nothing.
  if (!/^(?:rediss?(?:\+sentinel)?:\/\/|\/)/i.test(url))
    return 'a Redis URL starts with redis://, rediss://, redis+sentinel:// or rediss+sentinel:// (e.g. redis://127.0.0.1:6379), or is a socket path';
  if (!isSentinelUrl(url)) return undefined;
  const read = readSentinelUrl(url);
  return typeof read === 'string' ? read : undefined;
}

/** The ioredis options of a Sentinel URL; throws when it is malformed (the config schema refuses those first). */
export function sentinelOptions(url: string): SentinelOptions {
  const read = readSentinelUrl(url);
  if (typeof read === 'string') throw new ConfigError(read);
  return read;
}

function readSentinelUrl(url: string): SentinelOptions | string {
  const scheme = SENTINEL_SCHEME.exec(url);
  if (!scheme) return `a Sentinel URL starts with redis+sentinel:// or rediss+sentinel:// (${FORM})`;
  const rest = url.slice(scheme[0].length);
  if (rest.includes('#')) return 'a Sentinel URL takes no #fragment (a # in a password is written %23)';
  const queryAt = rest.indexOf('?');
  const main = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const pathAt = main.indexOf('/');
  const authority = pathAt < 0 ? main : main.slice(0, pathAt);
  const atAt = authority.lastIndexOf('@');

  const credentials = atAt < 0 ? {} : readUserinfo(authority.slice(0, atAt));
  if (typeof credentials === 'string') return credentials;
  const sentinels = readHosts(authority.slice(atAt + 1));
  if (typeof sentinels === 'string') return sentinels;
  const target = readPath(pathAt < 0 ? '' : main.slice(pathAt + 1));
  if (typeof target === 'string') return target;
  const query = readQuery(queryAt < 0 ? '' : rest.slice(queryAt + 1));
  if (typeof query === 'string') return query;

  // Without enableTLSForSentinelMode ioredis would ignore `tls` once Sentinel names the primary.
  const tls = scheme[1]!.toLowerCase() === 'rediss' ? { tls: {}, enableTLSForSentinelMode: true } : {};
  return { sentinels, ...target, ...credentials, ...query, ...tls };
}

function decoded(text: string, what: string): string | { problem: string } {
  try {
    return decodeURIComponent(text);
  } catch {
    return { problem: `the ${what} in the Sentinel URL is not valid percent-encoding` };
  }
}

/** `user:password` or `:password`: the data nodes' credentials. */
function readUserinfo(userinfo: string): Pick<SentinelOptions, 'username' | 'password'> | string {
  const colon = userinfo.indexOf(':');
  if (colon < 0) return 'the credentials in a Sentinel URL are user:password@ or :password@ (a password is needed)';
  const username = decoded(userinfo.slice(0, colon), 'user name');
  const password = decoded(userinfo.slice(colon + 1), 'password');
  if (typeof username !== 'string') return username.problem;
  if (typeof password !== 'string') return password.problem;
  if (password === '') return 'the password in a Sentinel URL is empty (leave out user:password@ when the data nodes have none)';
  return username === '' ? { password } : { username, password };
}

function readHosts(hosts: string): Array<{ host: string; port: number }> | string {
  if (hosts === '') return `a Sentinel URL names at least one sentinel host (${FORM})`;
  const sentinels: Array<{ host: string; port: number }> = [];
  for (const entry of hosts.split(',')) {
    const portAt = entry.lastIndexOf(':');
    // A colon inside [..] belongs to an IPv6 address, not to a port.
    const hasPort = portAt > entry.lastIndexOf(']');
    const name = hasPort ? entry.slice(0, portAt) : entry;
    const host = IPV6.exec(name)?.[1] ?? (HOST_NAME.test(name) ? name : undefined);
    if (!host) return `a sentinel host in the Sentinel URL is missing or not a host name or address (${FORM})`;
    const portText = hasPort ? entry.slice(portAt + 1) : String(DEFAULT_SENTINEL_PORT);
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65535)) return `a sentinel port in the Sentinel URL is not a port number (1-65535)`;
    sentinels.push({ host, port });
  }
  return sentinels;
}

/** `<master-name>[/<db>]`. */
function readPath(path: string): Pick<SentinelOptions, 'name' | 'db'> | string {
  const [nameText = '', dbText = '', ...more] = path.split('/');
  if (more.length > 0) return `a Sentinel URL has at most two path parts, the master name and the database (${FORM})`;
  const name = decoded(nameText, 'master name');
  if (typeof name !== 'string') return name.problem;
  if (name === '') return `a Sentinel URL names the master after the hosts (${FORM})`;
  if (dbText === '') return { name };
  if (!/^\d{1,5}$/.test(dbText)) return 'the database in a Sentinel URL (after the master name) is not a number';
  return { name, db: Number(dbText) };
}

/** Only the sentinels' own credentials: anything else would be quietly ignored, so it is refused. */
function readQuery(query: string): Pick<SentinelOptions, 'sentinelPassword' | 'sentinelUsername'> | string {
  const options: Record<string, string> = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    // The unknown name is not repeated: a mistyped parameter may be a password.
    if (!(QUERY_KEYS as readonly string[]).includes(key)) return `a Sentinel URL takes only the parameters ${QUERY_KEYS.join(' and ')}`;
    // Read with decodeURIComponent, not as a form: a + in a password stays a +.
    const value = decoded(eq < 0 ? '' : pair.slice(eq + 1), key);
    if (typeof value !== 'string') return value.problem;
    if (value === '') return `the Sentinel URL parameter ${key} is empty`;
    options[key] = value;
  }
  // ioredis would send the user name with no password, which every Redis refuses.
  if (options.sentinelUsername !== undefined && options.sentinelPassword === undefined)
    return 'sentinelUsername in a Sentinel URL needs sentinelPassword';
  return options;
}
