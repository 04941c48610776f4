/**
 * A file's name as a Bailian user reads it: Bailian renders the reply as Markdown, so a name Markdown would read
 * (`__init__.py` as a bold "init".py) is shown as inline code, and any other name bare (shown-names.ts).
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { renderPart } from '../../../../src/surfaces/v025/reply/render-parts.js';
import { shownName } from '../../../../src/surfaces/v025/reply/shown-names.js';
import { artifact, readText, run, status, submitted } from './support.js';

const opts = { inlineMaxBytes: 64 };
const raw = (text: string): string => Buffer.from(text).toString('base64');
const python = (text: string): Record<string, unknown> => ({ raw: raw(text), filename: '__init__.py', mediaType: 'text/x-python' });
const pythonChunk = (text: string, extra: Record<string, unknown> = {}): StreamResponse => artifact('f', [python(text)], extra);

describe('a file name the reply writes', () => {
  it('a readable file: the name as code over its block, when Markdown would read it', () => {
    expect(renderPart(python('from .app import main\n'), opts)).toBe('`__init__.py`\n```python\nfrom .app import main\n```');
    expect(renderPart({ raw: raw('a = 1\n'), filename: 'main.tf', mediaType: 'text/plain' }, opts)).toBe('main.tf\n```hcl\na = 1\n```');
  });

  it('a file described, named by its part or by its URL', () => {
    const binary = { raw: raw('\u0000\u0001'), filename: '__main__.bin', mediaType: 'application/octet-stream' };
    expect(renderPart(binary, opts)).toBe('`__main__.bin` (application/octet-stream, 2 bytes)');
    expect(renderPart({ url: 'iac-code-artifact://A/%2A_draft_%2A.pdf', mediaType: 'application/pdf' }, opts)).toBe(
      '`*_draft_*.pdf` (application/pdf)',
    );
    expect(renderPart({ url: 'iac-code-artifact://A/%E6%8A%A5%E5%91%8A.pdf', mediaType: 'application/pdf' }, opts)).toBe(
      '报告.pdf (application/pdf)',
    );
  });

  it('a link named by its part, and a data part', () => {
    expect(renderPart({ url: 'https://example.com/r.pdf', filename: '[final] r.pdf' }, opts)).toBe('`[final] r.pdf`: https://example.com/r.pdf');
    expect(renderPart({ data: { a: 1 }, filename: '<stack>.json' }, opts)).toBe('`<stack>.json`\n```json\n{\n  "a": 1\n}\n```');
  });

  it('a file streamed in chunks: its heading, and the line that says it was cut off', () => {
    const streamed = [submitted, pythonChunk('from .app import main\n', { lastChunk: false }), pythonChunk('main()\n', { append: true })];
    expect(readText(run([...streamed, pythonChunk('', { append: true, lastChunk: true }), status('TASK_STATE_COMPLETED')]))).toBe(
      '`__init__.py`\n```python\nfrom .app import main\nmain()\n```',
    );
    expect(readText(run([...streamed, status('TASK_STATE_FAILED', 'Disk full.', {}, 'f')]))).toBe(
      '`__init__.py`\n```python\nfrom .app import main\nmain()\n```\n(`__init__.py` was cut off: the agent did not finish it)\nDisk full.',
    );
  });

  it('a name holding backticks is held whole by a longer run; one that opens a block at a line start is code; one line always', () => {
    expect(shownName('a`b.txt')).toBe('``a`b.txt``');
    expect(shownName('`x`.md')).toBe('`` `x`.md ``');
    expect(shownName('# notes.md')).toBe('`# notes.md`');
    expect(shownName('- draft.md')).toBe('`- draft.md`');
    expect(shownName('1. intro.md')).toBe('`1. intro.md`');
    expect(shownName('a\nb.txt')).toBe('a b.txt');
    for (const name of ['main.tf', 'variables.tf', '报告.pdf', 'v1.2.tar.gz', 'C#.txt', '2024-q1.csv']) expect(shownName(name)).toBe(name);
  });
});
