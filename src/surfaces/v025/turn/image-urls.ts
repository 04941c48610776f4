import type { Logger } from 'pino';
import type { BailianConfig } from '../../../config/bailian-schema.js';
import { guardedGet } from '../../../http/guarded-get.js';
import { isRecord } from '../../../model/json.js';
import { noteImageFetch } from '../../../observability/image-fetches.js';

/** The image types the facade can tell by their bytes (translate/v025/bailian-images.ts). */
const SNIFFED_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * Image fetches one facade runs at once (`image-urls.max-concurrent`): each holds up to `max-bytes` while
 * it reads, so this bounds what callers can make the gateway hold. A fetch that finds no slot free is not
 * made: the image stays in the metadata.
 */
export class ImageFetchSlots {
  #free: number;

  constructor(max: number) {
    this.#free = max;
  }

  take(): boolean {
    if (this.#free === 0) return false;
    this.#free--;
    return true;
  }

  give(): void {
    this.#free++;
  }
}

export interface ImageUrlFetch {
  config: BailianConfig['image-urls'];
  slots?: ImageFetchSlots | undefined;
  /** The caller left: fetches still running are dropped. */
  signal: AbortSignal;
  logger?: Logger | undefined;
  /**
   * Whether the turn can still run (turn-limits.ts belowCap): false when its client is at its cap and the
   * core will refuse it, so it fetches nothing, and holds none of the facade's fetch slots other clients need.
   */
  turnCanRun?: () => boolean | Promise<boolean>;
}

/** Where a URL points, without its path and query: signed links carry their credential there. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(not a URL)';
  }
}

/** One URL image of Bailian's list, by its place in the list. */
export interface ImageUrl {
  index: number;
  url: string;
}

/**
 * The URL images of Bailian's list (`images: [{type: 'url', value}]`) the facade will fetch: none when
 * fetching is off or the agent takes no image type the facade can recognise; at most `max-images`.
 */
export function imageUrlsToFetch(namespace: unknown, acceptsImage: (mediaType: string) => boolean, config: BailianConfig['image-urls']): ImageUrl[] {
  const images = isRecord(namespace) ? namespace.images : undefined;
  if (!config.fetch || !Array.isArray(images) || !SNIFFED_TYPES.some(acceptsImage)) return [];
  return images
    .map((image: unknown, index) => ({
      index,
      url: isRecord(image) && image.type === 'url' && typeof image.value === 'string' ? image.value : undefined,
    }))
    .filter((entry): entry is ImageUrl => entry.url !== undefined)
    .slice(0, config['max-images']);
}

/** Never throws, as fetchImageUrls must not (the turn awaits it later, maybe not at all): a glance that fails leaves it to the core. */
async function turnCanRun(fetch: ImageUrlFetch): Promise<boolean> {
  try {
    return (await fetch.turnCanRun?.()) ?? true;
  } catch {
    return true;
  }
}

/**
 * The images at `urls` fetched at once, as base64 by their place in the list. A URL that is refused
 * (private host, not 200, too large, too slow) is left out and logged by its origin only; the image
 * then stays in the metadata, as before. What the bytes are is decided later, by their signature.
 */
export async function fetchImageUrls(urls: readonly ImageUrl[], fetch: ImageUrlFetch): Promise<ReadonlyMap<number, string>> {
  const fetched = new Map<number, string>();
  if (!(await turnCanRun(fetch))) return fetched;
  await Promise.all(
    urls.map(async ({ index, url }) => {
      if (fetch.slots && !fetch.slots.take()) {
        noteImageFetch('busy');
        fetch.logger?.warn({ imageOrigin: originOf(url), reason: 'too many image fetches at once' }, 'an image URL Bailian sent was not fetched');
        return;
      }
      try {
        const body = await guardedGet(url, {
          allowPrivate: fetch.config['allow-private'],
          timeoutMs: fetch.config['timeout-ms'],
          maxBytes: fetch.config['max-bytes'],
          accept: SNIFFED_TYPES.join(', '),
          maxRedirects: 3,
          signal: fetch.signal,
        });
        fetched.set(index, body.toString('base64'));
        noteImageFetch('fetched');
      } catch (error) {
        if (fetch.signal.aborted) return;
        noteImageFetch('refused');
        const reason = error instanceof Error ? error.message : 'failed';
        fetch.logger?.warn({ imageOrigin: originOf(url), reason }, 'an image URL Bailian sent was not fetched');
      } finally {
        fetch.slots?.give();
      }
    }),
  );
  return fetched;
}
