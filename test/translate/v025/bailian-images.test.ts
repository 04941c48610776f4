import { describe, expect, it } from 'vitest';
import { acceptsMediaType, imagesAsParts } from '../../../src/translate/index.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([36, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(8)]);
const base64 = (bytes: Buffer) => bytes.toString('base64');
const images = (...list: unknown[]) => ({ images: list });
const all = () => true;

describe('imagesAsParts: Bailian base64 images become raw parts', () => {
  it.each([
    ['image/png', 'png', PNG],
    ['image/jpeg', 'jpg', JPEG],
    ['image/gif', 'gif', GIF],
    ['image/webp', 'webp', WEBP],
  ])('%s is told by its bytes and named by its place in the list', (mediaType, extension, bytes) => {
    const made = imagesAsParts(images({ type: 'url', value: 'https://example.com/a.png' }, { type: 'base64', value: base64(bytes) }), all);
    expect(made?.parts).toEqual([{ raw: base64(bytes), mediaType, filename: `image-2.${extension}` }]);
    expect(Buffer.from(made!.parts[0]!.raw!, 'base64').equals(bytes)).toBe(true);
    // A URL image nobody fetched stays where Bailian put it: an agent may not fetch remote URLs.
    expect(made?.namespace).toEqual(images({ type: 'url', value: 'https://example.com/a.png' }));
  });

  it('reads a fetched URL image by its bytes like a base64 one; a fetched one that is no image stays as the URL', () => {
    const list = images(
      { type: 'url', value: 'https://example.com/a' },
      { type: 'url', value: 'https://example.com/b' },
      { type: 'base64', value: base64(GIF) },
    );
    const fetched = new Map([
      [0, base64(Buffer.from('<html>'))],
      [1, base64(JPEG)],
    ]);
    const made = imagesAsParts(list, all, fetched);
    expect(made?.parts).toEqual([
      { raw: base64(JPEG), mediaType: 'image/jpeg', filename: 'image-2.jpg' },
      { raw: base64(GIF), mediaType: 'image/gif', filename: 'image-3.gif' },
    ]);
    expect(made?.namespace).toEqual(images({ type: 'url', value: 'https://example.com/a' }));
  });

  it('reads a data URL by its bytes, not by its label, and drops white space in the base64', () => {
    const value = `data:image/jpeg;base64,${base64(PNG).replace(/(.{8})/g, '$1\n')}`;
    expect(imagesAsParts(images({ type: 'base64', value }), all)?.parts).toEqual([
      { raw: base64(PNG), mediaType: 'image/png', filename: 'image-1.png' },
    ]);
  });

  it('keeps the other extension fields and removes `images` once every image is a part', () => {
    const made = imagesAsParts({ chatId: 'chat-1', images: [{ type: 'base64', value: base64(PNG) }] }, all);
    expect(made?.namespace).toEqual({ chatId: 'chat-1' });
  });

  it.each([
    ['not base64', { type: 'base64', value: 'not base64!' }],
    ['base64 of no known image', { type: 'base64', value: base64(Buffer.from('%PDF-1.7 hello')) }],
    ['an empty value', { type: 'base64', value: '' }],
    ['a number', { type: 'base64', value: 42 }],
    ['no type', { value: base64(PNG) }],
    ['not an object', 'image'],
  ])('leaves %s in the metadata (undefined: nothing to change)', (_name, image) => {
    expect(imagesAsParts(images(image), all)).toBeUndefined();
  });

  it('leaves an image whose type the agent does not take', () => {
    const made = imagesAsParts(
      images({ type: 'base64', value: base64(GIF) }, { type: 'base64', value: base64(PNG) }),
      (type) => type === 'image/png',
    );
    expect(made?.parts.map((part) => part.filename)).toEqual(['image-2.png']);
    expect(made?.namespace).toEqual(images({ type: 'base64', value: base64(GIF) }));
  });

  it('changes nothing without images', () => {
    expect(imagesAsParts(undefined, all)).toBeUndefined();
    expect(imagesAsParts({ chatId: 'c' }, all)).toBeUndefined();
    expect(imagesAsParts({ images: 'no list' }, all)).toBeUndefined();
  });
});

describe('acceptsMediaType', () => {
  it('matches exact types, families, any type, and ignores parameters and case', () => {
    expect(acceptsMediaType(['text/plain', 'image/png'], 'image/png')).toBe(true);
    expect(acceptsMediaType(['text/plain', 'image/*'], 'image/webp')).toBe(true);
    expect(acceptsMediaType(['*/*'], 'image/gif')).toBe(true);
    expect(acceptsMediaType(['Image/PNG; q=0.9'], 'image/png')).toBe(true);
    expect(acceptsMediaType(['text/plain', 'image/jpeg'], 'image/png')).toBe(false);
    expect(acceptsMediaType([], 'image/png')).toBe(false);
  });
});
