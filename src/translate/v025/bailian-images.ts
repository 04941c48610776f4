import { withFields, type Part } from '../../model/index.js';
import { isRecord, type JsonObject } from '../common.js';

/**
 * Images a Bailian user attaches arrive in `message.metadata.images` (protocol extension:
 * `[{type: 'url' | 'base64', value}]`), never as parts, since Bailian's card contract is text/plain
 * only. A 1.0 agent reads images from parts: a base64 image whose type the agent's card accepts
 * becomes a raw part, so the agent sees what the user sent. A URL image is not given to the agent as a
 * URL (an agent like iac-code accepts only local `file://` URLs and would refuse the whole message):
 * the facade fetches it (surfaces/v025/turn/image-urls.ts) and its bytes are read here like a base64 one's.
 */

/** Leading bytes of the image types a browser or camera sends, and the extension a file of it gets. */
const SIGNATURES: ReadonlyArray<{ mediaType: string; extension: string; matches(head: Buffer): boolean }> = [
  {
    mediaType: 'image/png',
    extension: 'png',
    matches: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { mediaType: 'image/jpeg', extension: 'jpg', matches: (head) => head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff },
  { mediaType: 'image/gif', extension: 'gif', matches: (head) => /^GIF8[79]a/.test(head.subarray(0, 6).toString('latin1')) },
  {
    mediaType: 'image/webp',
    extension: 'webp',
    matches: (head) => head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP',
  },
];

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DATA_URL = /^data:([^;,]*)(?:;[^;,]*)*;base64,/i;

/** The image's bytes as standard base64 and its type, or undefined when it is not a base64 image of a known type. */
function decodeImage(value: unknown): { base64: string; mediaType: string; extension: string } | undefined {
  if (typeof value !== 'string') return undefined;
  // Bailian's pages show bare base64; a data URL (what a browser's canvas gives) is read too.
  const dataUrl = DATA_URL.exec(value);
  const base64 = (dataUrl ? value.slice(dataUrl[0].length) : value).replace(/\s+/g, '');
  if (base64.length === 0 || base64.length % 4 !== 0 || !BASE64.test(base64)) return undefined;
  // The signature decides the type: a data URL's own label is what the sender claimed, not what it is.
  const head = Buffer.from(base64.slice(0, 16), 'base64');
  const known = SIGNATURES.find((signature) => signature.matches(head));
  return known && { base64, mediaType: known.mediaType, extension: known.extension };
}

const NONE_FETCHED: ReadonlyMap<number, string> = new Map();

/** What `imagesAsParts` made: the parts to add to the message, and the extension's metadata without the images they carry. */
export interface BailianImages {
  parts: Part[];
  namespace: JsonObject;
}

/**
 * Base64 images of the extension namespace (`metadata[extension-metadata-key]`) that `accepts` takes,
 * and URL images whose bytes were `fetched` (base64, by their place in Bailian's list), as raw parts
 * named `image-<n>.<ext>` (n: that place); the rest stay in `images`, which goes when nothing is left
 * in it. Undefined when no image becomes a part.
 */
export function imagesAsParts(
  namespace: JsonObject | undefined,
  accepts: (mediaType: string) => boolean,
  fetched: ReadonlyMap<number, string> = NONE_FETCHED,
): BailianImages | undefined {
  const images = namespace?.images;
  if (!namespace || !Array.isArray(images)) return undefined;
  const parts: Part[] = [];
  const kept: unknown[] = [];
  images.forEach((image: unknown, index) => {
    const base64 = isRecord(image) && image.type === 'base64' ? image.value : fetched.get(index);
    const decoded = base64 === undefined ? undefined : decodeImage(base64);
    if (!decoded || !accepts(decoded.mediaType)) {
      kept.push(image);
      return;
    }
    parts.push({ raw: decoded.base64, mediaType: decoded.mediaType, filename: `image-${index + 1}.${decoded.extension}` });
  });
  if (parts.length === 0) return undefined;
  const { images: _moved, ...rest } = namespace;
  return { parts, namespace: kept.length > 0 ? withFields(rest, { images: kept }) : rest };
}

/**
 * Whether an agent whose card lists `inputModes` (its default input modes and its skills' own) takes a
 * part of `mediaType`; `image/*` and `*\/*` cover a whole family.
 */
export function acceptsMediaType(inputModes: readonly string[], mediaType: string): boolean {
  const family = `${mediaType.split('/')[0]}/*`;
  return inputModes.some((mode) => {
    const bare = mode.split(';')[0]!.trim().toLowerCase();
    return bare === mediaType || bare === family || bare === '*/*';
  });
}
