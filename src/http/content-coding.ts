import { createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';

/**
 * The content codings the gateway undoes when an agent (or a proxy in front of it) compresses an answer
 * it was not asked to: the upstream clients (upstream/decoded-body.ts) and the facade's pass-through copy
 * (surfaces/v025/relay/content-decoding.ts) read them the same way.
 */
export type ContentCoding = 'gzip' | 'deflate' | 'br';

/** The one coding of a Content-Encoding header: undefined for none or `identity`, null for what cannot be undone (unknown, or several). */
export function contentCoding(header: string | readonly string[] | null | undefined): ContentCoding | undefined | null {
  const codings = (Array.isArray(header) ? header.join(',') : ((header as string | null | undefined) ?? ''))
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return undefined;
  if (codings.length > 1) return null;
  const [coding] = codings;
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip';
  return coding === 'deflate' || coding === 'br' ? coding : null;
}

/** A streaming decoder of `coding`. */
export function createDecoder(coding: ContentCoding): Gunzip | Inflate | BrotliDecompress {
  return coding === 'gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : createBrotliDecompress();
}
