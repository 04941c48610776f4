import { createHash } from 'node:crypto';
import { open, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { ArtifactReader } from '../../core/inline-artifacts.js';
import { withFields, type Artifact, type Part } from '../../model/index.js';

/**
 * iac-code's artifacts, read from the folder it shares with the gateway (docs/iac-code.md,
 * "Artifacts"). iac-code names each stored file `iac-code-artifact://<artifactId>/<filename,
 * percent-encoded>` and keeps it at `<artifact-dir>/<artifactId>/<filename>`, with its sha256 and
 * byte size in the part's metadata. Nothing else can fetch that URL, so a caller is shown nothing
 * of the file unless the gateway reads it.
 */
export const IAC_CODE_ARTIFACT_SCHEME = 'iac-code-artifact://';

export interface ArtifactReaderOptions {
  dir: string;
  /** Larger files are not read (the caller gets the one-line description). */
  maxBytes: number;
  logger?: Logger;
}

export const isIacCodeArtifact = (part: Part): boolean => typeof part.url === 'string' && part.url.startsWith(IAC_CODE_ARTIFACT_SCHEME);

/** iac-code's id rule (letters, digits, `_ . : -`, 1 to 128), and never a dot segment. */
const ARTIFACT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
// Control characters are refused outright: a file name with them is not one iac-code writes.
// eslint-disable-next-line no-control-regex
const UNSAFE_NAME = /[/\\\u0000-\u001f\u007f]/;

/** The artifact's id and file name from its URL, or the reason it names no file inside the folder. */
export function parseArtifactUrl(url: string): { artifactId: string; filename: string } | { refused: string } {
  const rest = url.slice(IAC_CODE_ARTIFACT_SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return { refused: 'no artifact id' };
  const artifactId = rest.slice(0, slash);
  if (!ARTIFACT_ID.test(artifactId) || artifactId === '.' || artifactId === '..') return { refused: 'invalid artifact id' };
  let filename: string;
  try {
    filename = decodeURIComponent(rest.slice(slash + 1));
  } catch {
    return { refused: 'malformed file name' };
  }
  if (filename === '' || filename === '.' || filename === '..' || UNSAFE_NAME.test(filename) || filename.length > 255) {
    return { refused: 'invalid file name' };
  }
  return { artifactId, filename };
}

const sha256Of = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** `part` as callers are shown it once its file is read: the bytes in place of the URL, its name, type and metadata as iac-code wrote them. */
function readPart(part: Part, bytes: Buffer): Part {
  const { url: _url, ...described } = part;
  return withFields(described, { raw: bytes.toString('base64') });
}

/**
 * Whether `read` is iac-code's `stored` part with its file read in (readPart): the same name, type and metadata,
 * and the bytes whose sha256 that metadata names. A file iac-code writes anew has other bytes, so another sha256.
 */
function isReadCopy(stored: Part, read: Part): boolean {
  const sha = stored.metadata?.sha256;
  if (!isIacCodeArtifact(stored) || typeof read.raw !== 'string' || typeof sha !== 'string') return false;
  const bytes = Buffer.from(read.raw, 'base64');
  return isDeepStrictEqual(readPart(stored, bytes), read) && sha256Of(bytes) === sha.toLowerCase();
}

/**
 * Whether two copies of an artifact are the same file: equal, or one of them read in where the other keeps
 * iac-code's URL. The registry keeps the URL and only the calls shown the bytes see them (core/inline-artifacts.ts),
 * so the task before a turn (the registry's) and the task read since (the facade's) may hold the same file either way.
 */
export function sameArtifactFile(a: Artifact, b: Artifact): boolean {
  if (isDeepStrictEqual(a, b)) return true;
  const { parts: partsOfA, ...restOfA } = a;
  const { parts: partsOfB, ...restOfB } = b;
  if (partsOfA.length !== partsOfB.length || !isDeepStrictEqual(restOfA, restOfB)) return false;
  return partsOfA.every((part, at) => {
    const other = partsOfB[at]!;
    return isDeepStrictEqual(part, other) || isReadCopy(part, other) || isReadCopy(other, part);
  });
}

const numberField = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

export function createArtifactReader(options: ArtifactReaderOptions): ArtifactReader {
  const { maxBytes, logger } = options;
  let root: Promise<string> | undefined;

  async function read(part: Part): Promise<{ bytes: Buffer } | { refused: string }> {
    const parsed = parseArtifactUrl(part.url ?? '');
    if ('refused' in parsed) return parsed;
    const expectedSha = part.metadata?.sha256;
    if (typeof expectedSha !== 'string') return { refused: 'no sha256 to check the file against' };
    const folder = await (root ??= realpath(options.dir));
    // A link inside the folder must not lead out of it: compare real paths.
    const path = await realpath(join(folder, parsed.artifactId, parsed.filename)).catch(() => undefined);
    if (path === undefined) return { refused: 'no such file' };
    if (!path.startsWith(folder + sep)) return { refused: 'outside the artifact folder' };
    const file = await open(path, 'r');
    try {
      const stat = await file.stat();
      if (!stat.isFile()) return { refused: 'not a file' };
      if (stat.size > maxBytes) return { refused: `larger than ${maxBytes} bytes` };
      const bytes = await file.readFile();
      const declared = numberField(part.metadata?.byteSize);
      if (declared !== undefined && declared !== bytes.length) return { refused: 'byteSize does not match' };
      if (sha256Of(bytes) !== expectedSha.toLowerCase()) return { refused: 'sha256 does not match' };
      return { bytes };
    } finally {
      await file.close();
    }
  }

  return {
    handles: isIacCodeArtifact,
    async inline(part) {
      if (!isIacCodeArtifact(part)) return part;
      const result = await read(part).catch((error: unknown) => ({ refused: (error as NodeJS.ErrnoException).code ?? 'unreadable' }));
      if ('refused' in result) {
        logger?.warn({ artifact: part.url?.slice(0, 300), reason: result.refused }, 'iac-code artifact not shown');
        return part;
      }
      return readPart(part, result.bytes);
    },
  };
}
