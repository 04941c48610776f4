import { describe, expect, it } from 'vitest';
import { A2AError } from '../../src/model/index.js';
import { isPublicAddress } from '../../src/push/ip-ranges.js';
import { CallbackResolutionError, resolveAndPin, validateCallbackUrl, type LookupFunction } from '../../src/push/url-policy.js';
import { unhandledRejectionsDuring } from '../support/unhandled-rejections.js';

const PRIVATE = 'A2A push callback URL must not target private or local hosts';
const SCHEME = 'A2A push callback URL must be http or https';
const strict = { allowPrivate: false };

/** [url, why it is hostile, expected message]. */
const HOSTILE: Array<[string, string, string]> = [
  ['file:///etc/passwd', 'file scheme', SCHEME],
  ['ftp://example.com/hook', 'ftp scheme', SCHEME],
  ['gopher://example.com:70/_stats', 'gopher scheme', SCHEME],
  ['javascript:alert(1)', 'javascript scheme', SCHEME],
  ['ws://example.com/hook', 'websocket scheme', SCHEME],
  ['http://localhost/hook', 'localhost', PRIVATE],
  ['http://LOCALHOST./hook', 'localhost, upper case with root dot', PRIVATE],
  ['http://api.localhost/hook', '*.localhost', PRIVATE],
  ['http://printer.local/hook', 'mDNS .local', PRIVATE],
  ['http://intranet/hook', 'single-label name', PRIVATE],
  ['http://metadata/computeMetadata/v1/', 'GCP metadata short name', PRIVATE],
  ['http://metadata.google.internal/computeMetadata/v1/', 'GCP metadata host', PRIVATE],
  ['http://router.home.arpa/', 'home.arpa', PRIVATE],
  ['http://127.0.0.1/hook', 'loopback', PRIVATE],
  ['http://127.255.255.254:8080/hook', 'loopback /8', PRIVATE],
  ['http://2130706433/hook', 'decimal loopback', PRIVATE],
  ['http://0177.0.0.1/hook', 'octal loopback', PRIVATE],
  ['http://0x7f.0.0.1/hook', 'hex loopback', PRIVATE],
  ['http://0x7f000001/hook', 'single hex loopback', PRIVATE],
  ['http://127.1/hook', 'short-form loopback', PRIVATE],
  ['http://10.0.0.5/hook', 'private 10/8', PRIVATE],
  ['http://172.16.3.4/hook', 'private 172.16/12', PRIVATE],
  ['http://172.31.255.255/hook', 'private 172.16/12 upper end', PRIVATE],
  ['http://192.168.1.1/hook', 'private 192.168/16', PRIVATE],
  ['http://169.254.169.254/latest/meta-data/', 'AWS/Azure metadata, link-local', PRIVATE],
  ['http://100.100.100.200/latest/meta-data/', 'Alibaba Cloud metadata (CGNAT)', PRIVATE],
  ['http://100.64.0.1/hook', 'CGNAT 100.64/10', PRIVATE],
  ['http://198.18.0.1/hook', 'benchmarking 198.18/15', PRIVATE],
  ['http://192.0.0.192/hook', 'IETF assignments (Oracle metadata)', PRIVATE],
  ['http://192.0.2.10/hook', 'documentation TEST-NET-1', PRIVATE],
  ['http://203.0.113.7/hook', 'documentation TEST-NET-3', PRIVATE],
  ['http://224.0.0.1/hook', 'multicast', PRIVATE],
  ['http://240.0.0.1/hook', 'reserved', PRIVATE],
  ['http://255.255.255.255/hook', 'broadcast', PRIVATE],
  ['http://0.0.0.0/hook', 'unspecified v4', PRIVATE],
  ['http://0/hook', 'unspecified, short form', PRIVATE],
  ['http://[::1]/hook', 'IPv6 loopback', PRIVATE],
  ['http://[::]/hook', 'IPv6 unspecified', PRIVATE],
  ['http://[::ffff:127.0.0.1]/hook', 'IPv4-mapped loopback, dotted', PRIVATE],
  ['http://[::ffff:7f00:1]/hook', 'IPv4-mapped loopback, hex', PRIVATE],
  ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/hook', 'IPv4-mapped metadata, long form', PRIVATE],
  ['http://[::127.0.0.1]/hook', 'IPv4-compatible loopback', PRIVATE],
  ['http://[64:ff9b::10.0.0.1]/hook', 'NAT64 of a private v4', PRIVATE],
  ['http://[64:ff9b::a9fe:a9fe]/hook', 'NAT64 of the metadata IP', PRIVATE],
  ['http://[2002:7f00:1::]/hook', '6to4 of loopback', PRIVATE],
  ['http://[fd00::1]/hook', 'unique local fc00::/7', PRIVATE],
  ['http://[fd00:ec2::254]/latest/meta-data/', 'AWS IPv6 metadata', PRIVATE],
  ['http://[fe80::1]/hook', 'IPv6 link-local', PRIVATE],
  ['http://[fec0::1]/hook', 'IPv6 site-local', PRIVATE],
  ['http://[ff02::1]/hook', 'IPv6 multicast', PRIVATE],
  ['http://[2001:db8::1]/hook', 'IPv6 documentation', PRIVATE],
  ['http://[2001::1]/hook', 'Teredo', PRIVATE],
];

const ACCEPTED = [
  'https://hooks.example.com/a2a',
  'http://hooks.example.com:8080/a2a?x=1',
  'https://93.184.216.34/hook',
  'https://8.8.8.8/hook',
  'https://[2606:4700:4700::1111]/hook',
  'https://[64:ff9b::808:808]/hook', // NAT64 of a public v4
  'https://[::ffff:8.8.8.8]/hook', // mapped public v4
  'https://172.32.0.1/hook', // just outside 172.16/12
  'https://100.128.0.1/hook', // just outside 100.64/10
  'https://example.com./hook', // root dot
];

describe('validateCallbackUrl', () => {
  it.each(HOSTILE)('rejects %s (%s)', (url, _why, message) => {
    let thrown: unknown;
    try {
      validateCallbackUrl(url, strict);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(A2AError);
    expect((thrown as A2AError).code).toBe(-32602);
    expect((thrown as A2AError).message).toBe(message);
  });

  it('covers at least 30 hostile URLs', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
  });

  it.each(ACCEPTED)('accepts %s', (url) => {
    expect(validateCallbackUrl(url, strict).href).toBe(new URL(url).href);
  });

  it('rejects credentials in the URL and garbage', () => {
    expect(() => validateCallbackUrl('https://user:pw@hooks.example.com/', strict)).toThrow(/credentials/);
    expect(() => validateCallbackUrl('not-a-url', strict)).toThrow(/not a valid URL/);
    expect(() => validateCallbackUrl(`https://example.com/${'a'.repeat(3000)}`, strict)).toThrow(/2048/);
  });

  it('push-allow-private lets private and local hosts through, but never other schemes', () => {
    const open = { allowPrivate: true };
    expect(validateCallbackUrl('http://127.0.0.1:9999/hook', open).hostname).toBe('127.0.0.1');
    expect(validateCallbackUrl('http://localhost:9999/hook', open).hostname).toBe('localhost');
    expect(validateCallbackUrl('http://[::1]/hook', open).hostname).toBe('[::1]');
    expect(() => validateCallbackUrl('file:///etc/passwd', open)).toThrow(SCHEME);
  });
});

describe('isPublicAddress', () => {
  it('classifies addresses the way resolved DNS answers arrive', () => {
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('2606:4700:4700::1111')).toBe(true);
    expect(isPublicAddress('fe80::1%eth0')).toBe(false);
    expect(isPublicAddress('::ffff:10.1.2.3')).toBe(false);
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });
});

const fakeLookup =
  (table: Record<string, string[]>): LookupFunction =>
  async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('resolveAndPin', () => {
  const lookup = fakeLookup({
    'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
    'localtest.me': ['127.0.0.1'],
    'rebind.example': ['93.184.216.34', '10.0.0.1'],
    'metadata-alias.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:192.168.0.1'],
  });
  const pin = (url: string, allowPrivate = false) => resolveAndPin(new URL(url), { allowPrivate, lookup });

  it('pins the first address when every address is public', async () => {
    await expect(pin('https://public.example/hook')).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });

  it.each(['localtest.me', 'rebind.example', 'metadata-alias.example', 'mapped.example'])(
    'rejects %s, which resolves to a private address',
    async (host) => {
      await expect(pin(`https://${host}/hook`)).rejects.toThrow('A2A push callback URL must not resolve to private or local hosts');
    },
  );

  it('fails closed on DNS errors', async () => {
    await expect(pin('https://nowhere.example/hook')).rejects.toBeInstanceOf(CallbackResolutionError);
    const empty: LookupFunction = async () => [];
    await expect(resolveAndPin(new URL('https://x.example/'), { allowPrivate: false, lookup: empty })).rejects.toBeInstanceOf(
      CallbackResolutionError,
    );
  });

  it('gives up when the lookup outlives the signal', async () => {
    const never: LookupFunction = () => new Promise(() => undefined);
    const signal = AbortSignal.timeout(20);
    await expect(resolveAndPin(new URL('https://slow.example/'), { allowPrivate: false, lookup: never, signal })).rejects.toBeInstanceOf(
      CallbackResolutionError,
    );
  });

  it('a signal already aborted gives up before any lookup, so a failing lookup is never left unhandled', async () => {
    let lookups = 0;
    const failsLater: LookupFunction = () => {
      lookups++;
      return new Promise((_, reject) => setTimeout(() => reject(new Error('getaddrinfo ENOTFOUND x.invalid')), 10));
    };
    const unhandled = await unhandledRejectionsDuring(async () => {
      const options = { allowPrivate: false, lookup: failsLater, signal: AbortSignal.abort() };
      await expect(resolveAndPin(new URL('https://x.invalid/'), options)).rejects.toBeInstanceOf(CallbackResolutionError);
    }, 40);
    expect(unhandled).toEqual([]);
    expect(lookups).toBe(0);
  });

  it('pins literal addresses without a lookup, and allows private ones only when allowed', async () => {
    const noLookup: LookupFunction = async () => {
      throw new Error('must not be called');
    };
    await expect(resolveAndPin(new URL('http://[::1]:80/'), { allowPrivate: true, lookup: noLookup })).resolves.toEqual({
      address: '::1',
      family: 6,
    });
    await expect(resolveAndPin(new URL('http://127.0.0.1/'), { allowPrivate: false, lookup: noLookup })).rejects.toThrow(PRIVATE);
    await expect(pin('http://localtest.me/', true)).resolves.toEqual({ address: '127.0.0.1', family: 4 });
  });
});
