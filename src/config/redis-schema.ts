import { isIP } from 'node:net';
import { z } from 'zod';
import { withFields } from '../model/with-fields.js';
import { isSentinelUrl, isTlsUrl, redisUrlProblem } from '../redis/url.js';
import { certificateWithKey, TLS_FILE_FIELDS } from './tls-files.js';

/** A Redis URL; a Sentinel one is read here, so a malformed one stops the start (and check-config) with its reason. */
export const RedisUrl = z.string().superRefine((url, ctx) => {
  const problem = redisUrlProblem(url);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const filePair = certificateWithKey('redis-tls');

/**
 * TLS towards Redis, for every `rediss://` and `rediss+sentinel://` URL the gateway uses: `ca-file` is
 * the CA the server's certificate is checked against instead of the public roots (a private CA);
 * `cert-file` and `key-file` are the gateway's client certificate, for a Redis that requires mutual TLS.
 */
export const RedisTls = z
  .strictObject(
    withFields(TLS_FILE_FIELDS, {
      /** With `rediss+sentinel://`: the sentinels are reached over TLS too, with the same files (else over plain TCP). */
      sentinels: z.boolean().default(false),
      /**
       * The name the server's certificate must carry (and the SNI sent), instead of the host connected to:
       * for a URL, or a primary named by Sentinel, that is an IP address. Not an address itself: TLS sends none.
       */
      'server-name': z
        .string()
        .min(1)
        .refine((name) => isIP(name) === 0, 'must be a host name, not an address')
        .optional(),
    }),
  )
  .prefault({})
  .refine(filePair.check, filePair.message);
type RedisTls = z.output<typeof RedisTls>;

interface RedisSettings {
  'redis-tls': RedisTls;
  'redis-url': string;
  'push-redis-url'?: string | undefined;
}

const isSet = (tls: RedisTls): boolean => Boolean(tls['ca-file'] || tls['cert-file'] || tls['key-file'] || tls['server-name'] || tls.sentinels);

/** `redis-tls` acts only over TLS: a setting no URL would use is refused, not silently dropped. */
export function checkRedisTls(config: RedisSettings, ctx: z.RefinementCtx): void {
  if (!isSet(config['redis-tls'])) return;
  const tlsUrls = [config['redis-url'], config['push-redis-url']].filter((url): url is string => !!url && isTlsUrl(url));
  if (tlsUrls.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['redis-tls'],
      message: 'needs a rediss:// or rediss+sentinel:// redis-url or push-redis-url (it acts only over TLS)',
    });
  } else if (config['redis-tls'].sentinels && !tlsUrls.some(isSentinelUrl)) {
    ctx.addIssue({ code: 'custom', path: ['redis-tls', 'sentinels'], message: 'needs a rediss+sentinel:// redis-url or push-redis-url' });
  }
}
