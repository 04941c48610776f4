import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BailianConfig } from '../../../../src/config/bailian-schema.js';
import { imageFetchCounts } from '../../../../src/observability/image-fetches.js';
import { fetchImageUrls, ImageFetchSlots, imageUrlsToFetch, type ImageUrlFetch } from '../../../../src/surfaces/v025/turn/image-urls.js';
import { capturedLog } from '../../../support/captured-log.js';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
let server: Server;
let base: string;
let asked = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    asked++;
    response.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const config = (fields: Record<string, unknown> = {}) => BailianConfig.parse({ 'image-urls': { 'allow-private': true, ...fields } })['image-urls'];
const namespace = (count: number) => ({ images: Array.from({ length: count }, (_, i) => ({ type: 'url', value: `${base}/${i}.jpg` })) });
const takesJpeg = (mediaType: string) => mediaType === 'image/jpeg';
/** What the facade does for a message: pick the URLs it will fetch, then fetch them. */
const fetchAll = (ns: unknown, accepts: (mediaType: string) => boolean, fetch: ImageUrlFetch) =>
  fetchImageUrls(imageUrlsToFetch(ns, accepts, fetch.config), fetch);

describe('imageUrlsToFetch and fetchImageUrls', () => {
  it('fetches each URL image, by its place in the list, up to max-images', async () => {
    const fetched = await fetchAll(namespace(3), takesJpeg, { config: config({ 'max-images': 2 }), signal: new AbortController().signal });
    expect([...fetched.keys()]).toEqual([0, 1]);
    expect(Buffer.from(fetched.get(0)!, 'base64').equals(JPEG)).toBe(true);
  });

  it('fetches nothing when turned off, or when the agent takes no image type the bytes could be told as', async () => {
    const before = asked;
    const signal = new AbortController().signal;
    expect(imageUrlsToFetch(namespace(1), takesJpeg, config({ fetch: false }))).toEqual([]);
    expect(imageUrlsToFetch(namespace(1), (type) => type === 'image/tiff', config())).toEqual([]);
    expect((await fetchAll(namespace(1), takesJpeg, { config: config({ fetch: false }), signal })).size).toBe(0);
    expect(asked).toBe(before);
  });

  it('runs no more fetches at once than its slots, across messages; one without a slot is not made, and says so', async () => {
    const slots = new ImageFetchSlots(1);
    const busyBefore = imageFetchCounts().get('busy') ?? 0;
    const { logger, lines } = capturedLog();
    const signal = new AbortController().signal;
    const [first, second] = await Promise.all([
      fetchAll(namespace(2), takesJpeg, { config: config(), signal, slots, logger }),
      fetchAll(namespace(1), takesJpeg, { config: config(), signal, slots, logger }),
    ]);
    expect([...first.keys()]).toEqual([0]);
    expect(second.size).toBe(0);
    expect(lines.filter((line) => line.reason === 'too many image fetches at once')).toHaveLength(2);
    expect(imageFetchCounts().get('busy')).toBe(busyBefore + 2);
    // Every slot is back once the fetches are over.
    expect((await fetchAll(namespace(1), takesJpeg, { config: config(), signal, slots })).size).toBe(1);
  });
});
