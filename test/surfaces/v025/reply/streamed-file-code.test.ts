/**
 * A file streamed in chunks of raw bytes whose later chunk holds its own ``` fence (a Markdown file's code
 * block), and files cut short after other text closed their fence: the file's text never changes whether
 * the reply stands in code, so the progress after it reads as it does after a file sent whole, and a file
 * cut short is still described.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { inCode, NO_CODE, scanCode } from '../../../../src/surfaces/v025/reply/code-spans.js';
import { artifact, options, readText, run, status, submitted } from './support.js';

const README = { filename: 'README.md', mediaType: 'text/markdown' };

/** Each of `pieces` an appended chunk of artifact `f`, the last one saying so unless `open` (the first says nothing, as an a2a-js agent's). */
function chunks(pieces: (string | Buffer)[], file: Record<string, unknown> = README, open = false): StreamResponse[] {
  return pieces.map((piece, i) =>
    artifact('f', [{ raw: Buffer.from(piece).toString('base64'), ...file }], {
      ...(i > 0 ? { append: true } : {}),
      ...(i === pieces.length - 1 && !open ? { lastChunk: true } : {}),
    }),
  );
}

const working = (text: string, id: string) => status('TASK_STATE_WORKING', text, {}, id);
const PROGRESS = [working('Creating VPC', 'w1'), working('Creating ECS', 'w2'), working('All resources created.', 'w3')];
const AFTER = '\nCreating VPC\nCreating ECS\nAll resources created.';
const done = status('TASK_STATE_COMPLETED');
const MD = ['# Deploy\n\nRun:\n', '```bash\nterraform apply\n```\n', 'Then check the console.\n'];

describe('a Markdown file streamed in chunks, a later one holding its own ``` block', () => {
  it('is closed before that block and opened again under a longer fence; the progress after it reads on lines of its own', () => {
    const out = run([submitted, ...chunks(MD), ...PROGRESS, done]);
    expect(readText(out)).toBe(
      'README.md\n```markdown\n# Deploy\n\nRun:\n```\n````markdown\n```bash\nterraform apply\n```\nThen check the console.\n````' + AFTER,
    );
    expect(inCode(scanCode(NO_CODE, `${readText(out)}\n`))).toBe(false);
    // As after the same file sent whole.
    const whole = artifact('f', [{ raw: Buffer.from(MD.join('')).toString('base64'), ...README }], { lastChunk: true });
    expect(readText(run([submitted, whole, ...PROGRESS, done]))).toBe(`README.md\n\`\`\`\`markdown\n${MD.join('')}\`\`\`\`${AFTER}`);
  });

  it('a run cut between chunks, or begun mid-line, closes the block too; a run shorter than the fence does not', () => {
    expect(readText(run([submitted, ...chunks(['ab\n``', '`sh\nx\n```\n']), ...PROGRESS, done]))).toBe(
      'README.md\n```markdown\nab\n``\n```\n````markdown\n`sh\nx\n```\n````' + AFTER,
    );
    expect(readText(run([submitted, ...chunks(['say ', 'x ```y``` z\n']), ...PROGRESS, done]))).toBe(
      'README.md\n```markdown\nsay \n```\n````markdown\nx ```y``` z\n````' + AFTER,
    );
    expect(readText(run([submitted, ...chunks(['# A\n', 'use `x` and ``y``\n']), ...PROGRESS, done]))).toBe(
      'README.md\n```markdown\n# A\nuse `x` and ``y``\n```' + AFTER,
    );
  });

  it('progress between its chunks waits for its end, and a file left open still closes where the reply stood before it', () => {
    const [a, b, c] = chunks(MD);
    expect(readText(run([submitted, a!, b!, PROGRESS[0]!, c!, PROGRESS[1]!, done]))).toBe(
      'README.md\n```markdown\n# Deploy\n\nRun:\n```\n````markdown\n```bash\nterraform apply\n```\nThen check the console.\n````\nCreating VPC\nCreating ECS',
    );
    // Never told its last chunk: closed by the turn's end, the final message on a line of its own; a failed turn says it was cut off.
    const open = chunks(MD.slice(0, 2), README, true);
    const shown = 'README.md\n```markdown\n# Deploy\n\nRun:\n```\n````markdown\n```bash\nterraform apply\n```\n````';
    expect(readText(run([submitted, ...open, status('TASK_STATE_COMPLETED', 'Deployed.', {}, 'end')]))).toBe(`${shown}\nDeployed.`);
    expect(readText(run([submitted, ...open, status('TASK_STATE_FAILED', 'Disk full.', {}, 'end')]))).toBe(
      `${shown}\n(README.md was cut off: the agent did not finish it)\nDisk full.`,
    );
  });

  it('any text with backticks, cut anywhere: the reply stands outside code after it, the progress on lines of its own', () => {
    const char = fc.constantFrom('a', ' ', '\n', '`', '`', '~', '说');
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 6 }), (chars, at) => {
        const text = chars.join('');
        const cuts = [...new Set(at.map((n) => (text.length === 0 ? 0 : n % text.length)))].filter((n) => n > 0).sort((x, y) => x - y);
        const pieces = [0, ...cuts].map((start, i) => text.slice(start, [...cuts, text.length][i]));
        const shown = readText(run([submitted, ...chunks(pieces), ...PROGRESS, done]));
        expect(shown.endsWith(AFTER)).toBe(true);
        expect(inCode(scanCode(NO_CODE, `${shown.slice(0, -AFTER.length)}\n`))).toBe(false);
        // The file's text is all there, in order, whatever fence lines came between (its letters hold no 'markdown').
        const letters = (all: string) => all.replace(/[`\n]|markdown/g, '');
        expect(letters(shown.slice('README.md'.length, -AFTER.length))).toBe(letters(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a file cut short after other text closed its fence', () => {
  const writing = working('Writing the file.', 'w');
  const ZH = Buffer.from('# 说明\n'); // 说: bytes 2..4

  it('ended with a character left unfinished: a line says it was cut off, as when nothing closed it first', () => {
    // Its first chunk ends between characters, so it may be whole: the progress after it closes its fence.
    const [a, b] = chunks([ZH.subarray(0, 2), ZH.subarray(2, 4)]);
    const cut = '(README.md was cut off: the agent did not finish it)';
    expect(readText(run([submitted, a!, writing, b!, done]))).toBe(`README.md\n\`\`\`markdown\n# \n\`\`\`\nWriting the file.\n${cut}`);
    // Nothing else first: as it was.
    const [e, f] = chunks([ZH.subarray(0, 3), ZH.subarray(3, 4)]);
    expect(readText(run([submitted, e!, f!, done]))).toBe(`README.md\n\`\`\`markdown\n# \n\`\`\`\n${cut}`);
    // Its character finished by the next chunk: shown again under its name, no description.
    const [c, d] = chunks([ZH.subarray(0, 2), ZH.subarray(2)]);
    expect(readText(run([submitted, c!, writing, d!, done]))).toBe(
      'README.md\n```markdown\n# \n```\nWriting the file.\nREADME.md\n```markdown\n说明\n```',
    );
  });

  it("a first chunk cut inside a character is no whole file: the progress after it waits for the file's end", () => {
    const [a, b] = chunks([ZH.subarray(0, 3), ZH.subarray(3)]);
    expect(readText(run([submitted, a!, writing, b!, done]))).toBe('README.md\n```markdown\n# 说明\n```\nWriting the file.');
    // Never told its end: the turn's end ends it, and says it was cut off.
    const cut = '(README.md was cut off: the agent did not finish it)';
    expect(readText(run([submitted, a!, writing, done]))).toBe(`README.md\n\`\`\`markdown\n# \n\`\`\`\nWriting the file.\n${cut}`);
  });

  it('grown past the inline limit: described at its end, no stray fence', () => {
    const small = options(undefined, { inlineMaxBytes: 5 });
    const [a, b, c] = chunks(['ab\n', 'cdefgh\n', 'ijk\n']);
    expect(readText(run([submitted, a!, writing, b!, c!, done], small))).toBe(
      'README.md\n```markdown\nab\n```\nWriting the file.\nREADME.md (text/markdown, 14 bytes)',
    );
    // Never told its end: described at the end of a completed turn, said to be cut off at a failed one's.
    expect(readText(run([submitted, a!, writing, b!, done], small))).toBe(
      'README.md\n```markdown\nab\n```\nWriting the file.\nREADME.md (text/markdown, 10 bytes)',
    );
    expect(readText(run([submitted, a!, writing, b!, status('TASK_STATE_FAILED', 'Disk full.', {}, 'end')], small))).toBe(
      'README.md\n```markdown\nab\n```\nWriting the file.\n(README.md was cut off: the agent did not finish it)\nDisk full.',
    );
  });
});
