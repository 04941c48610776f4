/**
 * A file an agent sends as a URL, as a Bailian user reads it (parts as text): where the file is, when that
 * is a location the user can open or copy, never the agent's own disk or a credential in the URL; its name
 * when the agent gave none; a `data:` URL's bytes as the same bytes sent as `raw` read; a web link the user's
 * Markdown can follow whole.
 */
import { describe, expect, it } from 'vitest';
import { facadeWords } from '../../../../src/surfaces/v025/reply/index.js';
import { renderPart } from '../../../../src/surfaces/v025/reply/render-parts.js';
import { artifact, options, readText, run, status, submitted } from './support.js';

const opts = { inlineMaxBytes: 64 };
const zh = { inlineMaxBytes: 64, words: facadeWords('zh') };
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const YAML = "ROSTemplateFormatVersion: '2015-09-01'\nResources: {}\n";

describe('a file sent as a URL, read by a Bailian user', () => {
  it('a bucket location the user can copy is shown, as code (nothing of it read as Markdown), where it was described before', () => {
    expect(renderPart({ url: 'oss://my-bucket/reports/r.pdf', filename: 'r.pdf', mediaType: 'application/pdf' }, opts)).toBe(
      'r.pdf: `oss://my-bucket/reports/r.pdf`',
    );
    // Its name as code too, where Markdown would read it (shown-names.ts): bare, `__init__` reads as a bold "init".
    expect(renderPart({ url: 's3://b/out/__init__.py', filename: '__init__.py' }, opts)).toBe('`__init__.py`: `s3://b/out/__init__.py`');
    expect(renderPart({ url: 'gs://b/a b.csv' }, opts)).toBe('`gs://b/a b.csv`');
    // A backtick in the key: a longer run around it, so the span holds the whole location.
    expect(renderPart({ url: 'cos://b/a`b.txt' }, opts)).toBe('``cos://b/a`b.txt``');
  });

  it('never a credential written into the URL: user info is dropped; a signed query is kept, the user needs it to open the file', () => {
    expect(renderPart({ url: 's3n://AKIAEXAMPLE:wJalrXUtn@bucket/k.csv', filename: 'k.csv' }, opts)).toBe('k.csv: `s3n://bucket/k.csv`');
    expect(renderPart({ url: 'https://user:hunter2@example.com/r.pdf', filename: 'r.pdf' }, opts)).toBe('r.pdf: https://example.com/r.pdf');
    const signed = 'https://b.oss-cn-hangzhou.aliyuncs.com/r.pdf?OSSAccessKeyId=LTAI5t&Expires=1700000000&Signature=ab%2Bc%3D';
    expect(renderPart({ url: signed, filename: 'r.pdf' }, opts)).toBe(`r.pdf: ${signed}`);
  });

  it('never a secret that holds a `/`, `?` or `#` (half of AWS secret keys hold a `/`): its user info runs to the `@` before the host', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    for (const scheme of ['s3a', 's3n', 'oss']) {
      expect(renderPart({ url: `${scheme}://AKIAIOSFODNN7EXAMPLE:${secret}@my-bucket/out/report.csv`, filename: 'report.csv' }, opts)).toBe(
        `report.csv: \`${scheme}://my-bucket/out/report.csv\``,
      );
    }
    // A secret that begins with `/`, and one whose own `@` comes before the host's.
    expect(renderPart({ url: 's3a://AKIAIOSFODNN7EXAMPLE:/K7MDENG@my-bucket/r.csv' }, opts)).toBe('`s3a://my-bucket/r.csv`');
    expect(renderPart({ url: 'https://deploy:pa/ss@files.example.com/r.pdf', filename: 'r.pdf' }, opts)).toBe(
      'r.pdf: https://files.example.com/r.pdf',
    );
    // Where the host cannot be told from the secret (a `?` or `#` in it, a port or a password before a path with
    // an `@`), the file is described, its location not shown.
    for (const url of [
      'ftp://deploy:p#ss@files.example.com/r.pdf',
      'https://u:p?w@example.com/r.pdf',
      'https://deploy:/K7MDENG@files.example.com/r.pdf',
      'https://deploy:1234/K7MDENG@files.example.com/r.pdf',
      's3://AKIAIOSFODNN7EXAMPLE:K7M?DENG@my-bucket/r.csv',
      // A secret cut by its `/`, and an `@` in the path after the host: which `@` ends the user info is not known
      // (the last would show another bucket or host, `s3a://x.com/…`).
      's3a://AKIAIOSFODNN7EXAMPLE:wJal/K7MDENG@reports/users/bob@x.com/r.pdf',
      'https://deploy:pa/ss@files.example.com/users/bob@x.com/r.pdf',
      'oss://AKIAIOSFODNN7EXAMPLE:a/b@c@bucket/r.pdf',
    ]) {
      const shown = renderPart({ url, filename: 'r.pdf', mediaType: 'application/pdf' }, opts);
      expect(shown, url).toBe('r.pdf (application/pdf)');
    }
  });

  it("a bucket location's query is left out: a CLI location has none, and an agent puts credentials there", () => {
    const url = 'oss://my-bucket/out/r.csv?security-token=CAIS1234secretsts&access_key_secret=abcdEFGH1234';
    expect(renderPart({ url, filename: 'r.csv' }, opts)).toBe('r.csv: `oss://my-bucket/out/r.csv`');
    expect(renderPart({ url: 'gs://b/%E6%8A%A5%E5%91%8A.pdf?X-Goog-Signature=abc' }, zh)).toBe('报告.pdf: `gs://b/%E6%8A%A5%E5%91%8A.pdf`');
    // Nor its fragment, where a credential may be too.
    expect(renderPart({ url: 'oss://bucket/k#access_key_secret=def', filename: 'k' }, opts)).toBe('k: `oss://bucket/k`');
    expect(renderPart({ url: 'oss://bucket/out/r.csv?x=1#access_key_secret=def', filename: 'r.csv' }, opts)).toBe('r.csv: `oss://bucket/out/r.csv`');
    // A web link's is kept (a presigned link's security token and signature open the file).
    const signed = 'https://b.oss-cn-hangzhou.aliyuncs.com/r.csv?security-token=CAIS&OSSAccessKeyId=STS.x&Signature=ab';
    expect(renderPart({ url: signed, filename: 'r.csv' }, opts)).toBe(`r.csv: ${signed}`);
  });

  it("Azure's container@account is the location, not user info: kept, but for a credential (a `:` in it)", () => {
    for (const scheme of ['abfss', 'abfs', 'wasbs', 'wasb', 'az']) {
      const url = `${scheme}://reports@mystorage.dfs.core.windows.net/2024/q1.csv`;
      expect(renderPart({ url, filename: 'q1.csv' }, opts)).toBe(`q1.csv: \`${url}\``);
    }
    expect(renderPart({ url: 'wasbs://user:s3cr/et@reports@mystorage.blob.core.windows.net/q1.csv' }, opts)).not.toContain('s3cr');
    expect(renderPart({ url: 'wasbs://user:s3cret@mystorage.blob.core.windows.net/q1.csv' }, opts)).toBe(
      '`wasbs://mystorage.blob.core.windows.net/q1.csv`',
    );
    // Elsewhere a name before `@` is a token: dropped.
    expect(renderPart({ url: 'oss://ghp_token123@my-bucket/r.csv' }, opts)).toBe('`oss://my-bucket/r.csv`');
  });

  it("never the agent's own disk, nor a URL only its agent can open: described, under the name in the URL when it gave none", () => {
    expect(renderPart({ url: 'file:///home/agent/workspace/x', filename: 'x', mediaType: 'text/plain' }, opts)).toBe('x (text/plain)');
    expect(renderPart({ url: 'file:///home/agent/workspace/main.tf', mediaType: 'text/plain' }, opts)).toBe('main.tf (text/plain)');
    expect(renderPart({ url: 'iac-code-artifact://A/%E6%8A%A5%E5%91%8A.pdf', mediaType: 'application/pdf' }, opts)).toBe(
      '报告.pdf (application/pdf)',
    );
    expect(renderPart({ url: 'javascript:alert(1)', filename: 'x.html' }, opts)).toBe('x.html');
  });

  it('without a name anywhere, the word for a file (and its size) is in the turn’s language', () => {
    expect(renderPart({ url: 'iac-code-artifact://A', mediaType: 'application/pdf' }, zh)).toBe('文件 (application/pdf)');
    expect(renderPart({ raw: b64('{"a":1}'), mediaType: 'application/json' }, zh)).toBe('文件\n```json\n{"a":1}\n```');
    expect(renderPart({ raw: b64(Buffer.from([1, 2])), mediaType: 'image/png' }, { ...opts, words: facadeWords('ja') })).toBe(
      'ファイル (image/png, 2 バイト)',
    );
  });

  it('a name the shown location does not show as it reads (encoded) is given before it; one it shows, is not repeated', () => {
    expect(renderPart({ url: 'oss://bucket/报告.pdf', mediaType: 'application/pdf' }, zh)).toBe('`oss://bucket/报告.pdf`');
    expect(renderPart({ url: 'oss://bucket/%E6%8A%A5%E5%91%8A.pdf' }, zh)).toBe('报告.pdf: `oss://bucket/%E6%8A%A5%E5%91%8A.pdf`');
    expect(renderPart({ url: 'https://example.com/d/%E6%8A%A5%E5%91%8A.pdf?x=1' }, zh)).toBe(
      '报告.pdf: https://example.com/d/%E6%8A%A5%E5%91%8A.pdf?x=1',
    );
    // The same link, whether the agent encoded it or the facade had to.
    expect(renderPart({ url: 'https://example.com/a%20b.pdf' }, opts)).toBe('a b.pdf: https://example.com/a%20b.pdf');
    expect(renderPart({ url: 'https://example.com/a b.pdf' }, opts)).toBe('a b.pdf: https://example.com/a%20b.pdf');
    expect(renderPart({ url: 'https://example.com/报告.pdf' }, zh)).toBe('https://example.com/报告.pdf');
  });

  it('a data: URL reads as the same bytes sent as raw do, within the same bounds, and is never shown as a URL', () => {
    const asBytes = renderPart({ raw: b64(YAML), filename: 't.yaml', mediaType: 'application/yaml' }, opts);
    expect(renderPart({ url: `data:application/yaml;base64,${b64(YAML)}`, filename: 't.yaml', mediaType: 'application/yaml' }, opts)).toBe(asBytes);
    expect(asBytes).toBe(`t.yaml\n\`\`\`yaml\n${YAML}\`\`\``);
    // Its type from the URL when the part says none; percent-encoded text; no name: the turn's word.
    expect(renderPart({ url: 'data:text/plain;charset=utf-8,hello%20%E4%B8%96%E7%95%8C' }, zh)).toBe('文件\n```\nhello 世界\n```');
    expect(renderPart({ url: 'data:,a%2Cb' }, opts)).toBe('file\n```\na,b\n```');
    expect(renderPart({ url: `data:text/plain;base64,${b64('x'.repeat(65))}`, filename: 'big.txt' }, opts)).toBe('big.txt (text/plain, 65 bytes)');
    expect(renderPart({ url: `data:image/png;base64,${b64(Buffer.from([0x89, 0x50, 0x4e]))}`, filename: 'a.png' }, opts)).toBe(
      'a.png (image/png, 3 bytes)',
    );
    // Not a data URL at all (no comma): described, never shown.
    expect(renderPart({ url: 'data:text/plain;base64', filename: 'x.txt', mediaType: 'text/plain' }, opts)).toBe('x.txt (text/plain)');
  });

  it('a web link is percent-encoded where a Markdown autolink would stop, never twice', () => {
    expect(renderPart({ url: 'https://example.com/a b (1).pdf', filename: 'spaces.pdf' }, opts)).toBe(
      'spaces.pdf: https://example.com/a%20b%20(1).pdf',
    );
    const link = (url: string) => renderPart({ url, filename: 'f' }, opts).slice('f: '.length);
    expect(link('https://example.com/a%20b.pdf')).toBe('https://example.com/a%20b.pdf');
    expect(link('https://example.com/100%.pdf')).toBe('https://example.com/100%25.pdf');
    expect(link('https://example.com/s?q=a b&r=<x>#p "q"')).toBe('https://example.com/s?q=a%20b&r=%3Cx%3E#p%20%22q%22');
    // Chinese letters stay readable; full-width punctuation and the ideographic space end a link, so are encoded.
    expect(link('https://example.com/报告　（终版）.pdf')).toBe('https://example.com/报告%E3%80%80%EF%BC%88终版%EF%BC%89.pdf');
    expect(link('https://example.com/a\nb`c|d')).toBe('https://example.com/a%0Ab%60c%7Cd');
    // What an autolink leaves off its end: trailing punctuation, and a `)` that closes nothing in it.
    expect(link('https://example.com/v1.')).toBe('https://example.com/v1%2E');
    expect(link('https://example.com/a)')).toBe('https://example.com/a%29');
    expect(link('https://en.wikipedia.org/wiki/Foo_(bar)')).toBe('https://en.wikipedia.org/wiki/Foo_(bar)');
    expect(link('http://[::1]:8080/x y')).toBe('http://[::1]:8080/x%20y');
    // A name with a line break in it is no name to show: the link alone.
    expect(renderPart({ url: 'https://example.com/a%0Ab' }, opts)).toBe('https://example.com/a%0Ab');
  });

  it('a file streamed without a name (its fence opened with its first chunk) is introduced in the turn’s language', () => {
    const out = run(
      [submitted, artifact('f', [{ raw: b64('a\nb\n'), mediaType: 'text/plain' }]), status('TASK_STATE_COMPLETED', '好了。')],
      options(undefined, { words: facadeWords('zh') }),
    );
    expect(readText(out)).toBe('文件\n```\na\nb\n```\n好了。');
  });
});
