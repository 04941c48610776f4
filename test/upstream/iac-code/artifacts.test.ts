import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createArtifactReader, parseArtifactUrl, sameArtifactFile } from '../../../src/upstream/iac-code/artifacts.js';

const root = mkdtempSync(join(tmpdir(), 'a2a-bridge-reader-'));
const dir = join(root, 'artifacts');
mkdirSync(dir);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CONTENT = Buffer.from('resource "x" "y" {}\n');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
function store(id: string, name: string, bytes = CONTENT): void {
  mkdirSync(join(dir, id), { recursive: true });
  writeFileSync(join(dir, id, name), bytes);
}
const part = (url: string, metadata: Record<string, unknown> = { sha256: sha(CONTENT), byteSize: CONTENT.length }) => ({
  url,
  filename: 'main.tf',
  mediaType: 'text/plain',
  metadata,
});
const reader = createArtifactReader({ dir, maxBytes: 1024 });

describe("reading iac-code's artifacts from the shared folder", () => {
  it('a stored, verified file becomes raw bytes; name, type and metadata stay', async () => {
    store('A1', 'main.tf');
    const inlined = await reader.inline(part('iac-code-artifact://A1/main.tf'));
    expect(inlined).toEqual({
      raw: CONTENT.toString('base64'),
      filename: 'main.tf',
      mediaType: 'text/plain',
      metadata: { sha256: sha(CONTENT), byteSize: CONTENT.length },
    });
  });

  it('percent-encoded names are decoded (iac-code encodes everything)', async () => {
    store('A2', 'my file.tf');
    expect((await reader.inline(part('iac-code-artifact://A2/my%20file.tf'))).raw).toBe(CONTENT.toString('base64'));
  });

  it.each([
    ['no id', 'iac-code-artifact:///main.tf'],
    ['a dot-dot id', 'iac-code-artifact://../main.tf'],
    ['an encoded path escape', 'iac-code-artifact://A1/..%2F..%2Fsecret'],
    ['an encoded backslash', 'iac-code-artifact://A1/..%5Csecret'],
    ['a NUL', 'iac-code-artifact://A1/main.tf%00.txt'],
    ['a malformed escape', 'iac-code-artifact://A1/%E0%A4%A'],
  ])('refuses %s without reading anything', (_name, url) => {
    expect('refused' in parseArtifactUrl(url)).toBe(true);
  });

  it('a link out of the folder, a missing file, a tampered file, a wrong size, no sha256, an oversized file: the URL stays', async () => {
    writeFileSync(join(root, 'outside.tf'), CONTENT);
    mkdirSync(join(dir, 'L1'));
    symlinkSync(join(root, 'outside.tf'), join(dir, 'L1', 'main.tf'));
    store('T1', 'main.tf', Buffer.from('resource "x" "z" {}\n'));
    store('S1', 'main.tf');
    store('B1', 'main.tf', Buffer.alloc(2048, 'a'));
    const cases = [
      part('iac-code-artifact://L1/main.tf'),
      part('iac-code-artifact://NOPE/main.tf'),
      part('iac-code-artifact://T1/main.tf'),
      part('iac-code-artifact://S1/main.tf', { sha256: sha(CONTENT), byteSize: 3 }),
      part('iac-code-artifact://S1/main.tf', { byteSize: CONTENT.length }),
      part('iac-code-artifact://B1/main.tf', { sha256: sha(Buffer.alloc(2048, 'a')) }),
    ];
    for (const original of cases) expect(await reader.inline(original), original.url).toBe(original);
  });

  it('other parts pass untouched', async () => {
    const other = { url: 'https://example.com/x' };
    expect(await reader.inline(other)).toBe(other);
  });
});

describe('the same file, as the registry keeps it and as the facade reads it', () => {
  const artifact = (parts: Record<string, unknown>[]) => ({ artifactId: 'F1', name: 'main.tf', parts, metadata: { sha256: sha(CONTENT) } });
  const kept = artifact([part('iac-code-artifact://F1/main.tf')]);

  it('a file read in is the file its URL names', async () => {
    store('F1', 'main.tf');
    const read = artifact([await reader.inline(part('iac-code-artifact://F1/main.tf'))]);
    expect(read.parts[0]).toHaveProperty('raw');
    expect(sameArtifactFile(kept, read)).toBe(true);
    expect(sameArtifactFile(read, kept)).toBe(true);
  });

  it('a file written anew under the same id is another file, and so are other bytes under the same metadata', async () => {
    const changed = Buffer.from('resource "x" "changed" {}\n');
    const { url: _url, ...described } = part('iac-code-artifact://F1/main.tf');
    const rewritten = artifact([{ ...described, metadata: { sha256: sha(changed), byteSize: changed.length }, raw: changed.toString('base64') }]);
    const forged = artifact([{ ...described, raw: changed.toString('base64') }]);
    expect(sameArtifactFile(kept, rewritten)).toBe(false);
    expect(sameArtifactFile(kept, forged)).toBe(false);
  });
});
