import { describe, expect, it } from 'vitest';
import { renderPart, renderParts } from '../../../../src/surfaces/v025/reply/render-parts.js';
import { fenced, isTextLike } from '../../../../src/surfaces/v025/reply/text-files.js';

const opts = { inlineMaxBytes: 64 };
const raw = (text: string | Buffer) => Buffer.from(text).toString('base64');

describe('parts as text for a text-only caller', () => {
  it('text-like media types and, without one, text-like file names', () => {
    for (const type of [
      'text/plain',
      'text/markdown',
      'application/json',
      'application/ld+json',
      'application/yaml',
      'application/xml',
      'application/x-sh',
      'application/hcl',
    ])
      expect(isTextLike(type, undefined), type).toBe(true);
    for (const type of ['image/png', 'application/pdf', 'application/zip']) expect(isTextLike(type, 'x.tf'), type).toBe(false);
    expect(isTextLike(undefined, 'main.tf')).toBe(true);
    expect(isTextLike('application/octet-stream', 'values.yaml')).toBe(true);
    expect(isTextLike(undefined, 'blob.bin')).toBe(false);
  });

  it('a readable file: its name, then a fenced block in the language of its name', () => {
    expect(renderPart({ raw: raw('a = 1\n'), filename: 'main.tf', mediaType: 'text/plain' }, opts)).toBe('main.tf\n```hcl\na = 1\n```');
    expect(renderPart({ raw: raw('{"a":1}'), mediaType: 'application/json' }, opts)).toBe('file\n```json\n{"a":1}\n```');
  });

  it('a fence its content cannot close', () => {
    expect(fenced('x\n```\ny', '')).toBe('````\nx\n```\ny\n````');
    // More runs of backticks than a function call takes arguments (a long markdown file).
    const ticks = '`\n'.repeat(200_000) + '``````';
    expect(fenced(ticks, 'md').startsWith('```````md\n')).toBe(true);
  });

  it('binary, oversized and invalid UTF-8 files are one line, with nothing of their bytes', () => {
    expect(renderPart({ raw: raw(Buffer.from([0x89, 0x50])), filename: 'a.png', mediaType: 'image/png' }, opts)).toBe('a.png (image/png, 2 bytes)');
    expect(renderPart({ raw: raw('x'.repeat(65)), filename: 'big.txt', mediaType: 'text/plain' }, opts)).toBe('big.txt (text/plain, 65 bytes)');
    expect(renderPart({ raw: raw(Buffer.from([0xc3, 0x28])), filename: 'bad.txt', mediaType: 'text/plain' }, opts)).toBe(
      'bad.txt (text/plain, 2 bytes)',
    );
  });

  it('URLs are never fetched: `name: url`, and a URL only its agent can open is described', () => {
    expect(renderPart({ url: 'https://example.com/r.pdf', filename: 'r.pdf' }, opts)).toBe('r.pdf: https://example.com/r.pdf');
    expect(renderPart({ url: 'https://example.com/r.pdf' }, opts)).toBe('https://example.com/r.pdf');
    expect(renderPart({ url: 'iac-code-artifact://A/main.tf', filename: 'main.tf', mediaType: 'text/plain', metadata: { byteSize: 14 } }, opts)).toBe(
      'main.tf (text/plain, 14 bytes)',
    );
  });

  it('data as a fenced JSON block', () => {
    expect(renderPart({ data: { a: [1] } }, opts)).toBe('```json\n{\n  "a": [\n    1\n  ]\n}\n```');
  });

  it('data past inline-max-bytes described as a file that large would be, not shown whole', () => {
    const rows = Array.from({ length: 20 }, (_, id) => ({ id }));
    const bytes = Buffer.byteLength(JSON.stringify(rows, null, 2));
    expect(bytes).toBeGreaterThan(opts.inlineMaxBytes);
    expect(renderPart({ data: rows }, opts)).toBe(`JSON (${bytes} bytes)`);
    expect(renderPart({ data: rows, filename: 'vpcs.json' }, opts)).toBe(`vpcs.json (application/json, ${bytes} bytes)`);
    // 0 bounds files only (never inline), as it always did.
    expect(renderPart({ data: rows }, { inlineMaxBytes: 0 })).toContain('```json');
  });

  it('text parts run together; other parts stand on lines of their own', () => {
    expect(renderParts([{ text: 'See ' }, { text: 'this:' }, { data: 1 }, { text: 'end' }], opts)).toBe('See this:\n```json\n1\n```\nend');
  });
});
