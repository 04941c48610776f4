/**
 * A file an agent streams as raw bytes in appended chunks, read by a Bailian user (one reply text, parts
 * as text): one fenced block with the whole file, in message/stream and message/send alike; a file that
 * is no text is described once, with its whole size.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import type { V025StreamEvent } from '../../../../src/protocol/v025/index.js';
import { createReplyFold, facadeWords, renderPart } from '../../../../src/surfaces/v025/reply/index.js';
import { artifact, options, readText, run, status, submitted, tool } from './support.js';

const TF = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
const ZH = '# 说明\n这是一个专有网络模板，包含两个交换机。\n';
const WHOLE_TF = `main.tf\n\`\`\`hcl\n${TF}\`\`\``;

/** The file's bytes cut at `cuts` (byte offsets), each piece an appended chunk of artifact `f`, the last one saying so. */
function chunks(
  content: string | Buffer,
  cuts: number[],
  file: Record<string, unknown> = { filename: 'main.tf', mediaType: 'text/plain' },
): StreamResponse[] {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
  const at = [0, ...cuts, bytes.length];
  return at.slice(0, -1).map((start, i) =>
    artifact('f', [{ raw: bytes.subarray(start, at[i + 1]).toString('base64'), ...file }], {
      ...(i > 0 ? { append: true } : {}),
      ...(i === at.length - 2 ? { lastChunk: true } : {}),
    }),
  );
}

const writing = status('TASK_STATE_WORKING', 'Writing the file.', {}, 'w');
const ready = status('TASK_STATE_COMPLETED', 'The file is ready.', {}, 'r');
const progress = (n: number) => status('TASK_STATE_WORKING', `Progress ${n}.`, {}, `p${n}`);

/** What message/send answers for the same events: the fold of what message/stream sent. */
function sent(out: V025StreamEvent[]): string {
  const fold = createReplyFold();
  out.forEach((event) => fold.add(event));
  const result = fold.result();
  if (result?.kind !== 'task') return '';
  return (result.artifacts ?? [])
    .flatMap((a) => a.parts)
    .map((part) => (part.kind === 'text' ? part.text : ''))
    .join('');
}

const texts = (out: V025StreamEvent[]): string[] =>
  out.flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts.map((part) => (part.kind === 'text' ? part.text : '')) : []));

describe('a text file streamed as raw bytes in appended chunks', () => {
  it('reads as one fenced block with the whole file, in message/stream and message/send', () => {
    const out = run([submitted, writing, ...chunks(TF, [7, 20]), ready]);
    const whole = `Writing the file.\n${WHOLE_TF}\nThe file is ready.`;
    expect(readText(out)).toBe(whole);
    expect(sent(out)).toBe(whole);
  });

  it('is shown as it comes: the name and the open fence with the first chunk, each chunk inside it, the fence closed with the last', () => {
    const out = run([submitted, ...chunks(TF, [7, 20]), ready]);
    expect(texts(out).filter((text) => text !== '')).toEqual([
      'main.tf\n```hcl\nresourc',
      'e "alicloud_v',
      `pc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n`,
      '```',
      '\nThe file is ready.',
    ]);
  });

  it('cut inside a UTF-8 character: the character waits for the next chunk, and the file is shown, not described', () => {
    // Byte 7 falls inside 说, byte 20 inside 是.
    for (const cuts of [
      [7, 20],
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
    ]) {
      const out = run([submitted, writing, ...chunks(ZH, cuts, { filename: 'README.md', mediaType: 'text/plain' }), ready]);
      const whole = `Writing the file.\nREADME.md\n\`\`\`markdown\n${ZH}\`\`\`\nThe file is ready.`;
      expect(readText(out)).toBe(whole);
      expect(sent(out)).toBe(whole);
      expect(readText(out)).not.toContain('\ufffd');
    }
  });

  it('a file sent whole in one part reads exactly as before, whatever it says of its last chunk', () => {
    const part = { raw: Buffer.from(TF).toString('base64'), filename: 'main.tf', mediaType: 'text/plain' };
    expect(renderPart(part, options())).toBe(WHOLE_TF);
    for (const extra of [{}, { lastChunk: true }, { lastChunk: false }]) {
      const out = run([submitted, writing, artifact('f', [part], extra), progress(1), ready]);
      expect(readText(out)).toBe(`Writing the file.\n${WHOLE_TF}\nProgress 1.\nThe file is ready.`);
    }
    const binary = { raw: Buffer.from([0, 1, 2, 255]).toString('base64'), filename: 'logo.png', mediaType: 'image/png' };
    expect(readText(run([submitted, artifact('f', [binary]), progress(1), ready]))).toBe(
      'logo.png (image/png, 4 bytes)\nProgress 1.\nThe file is ready.',
    );
  });

  it('progress sent between its chunks is shown after it, not inside the fence; a tool call between them breaks nothing', () => {
    const [first, second, third] = chunks(TF, [7, 20]);
    const out = run([submitted, first!, second!, progress(1), third!, progress(2), ready]);
    expect(readText(out)).toBe(`${WHOLE_TF}\nProgress 1.\nProgress 2.\nThe file is ready.`);
    expect(readText(run([submitted, first!, tool, second!, third!, ready]))).toBe(`${WHOLE_TF}\nThe file is ready.`);
  });

  it('the fence is closed however the turn ends; a failure or a break-off says it was cut off, a completed turn does not', () => {
    const open = chunks(TF, [7, 20]).slice(0, 2);
    const shown = 'main.tf\n```hcl\nresource "alicloud_v\n```';
    const part = `${shown}\n(main.tf was cut off: the agent did not finish it)`;
    // Completed: an agent that never says an artifact's last chunk (a2a-python) ends its whole files so.
    for (const [ending, after] of [
      [[status('TASK_STATE_COMPLETED')], shown],
      [[status('TASK_STATE_COMPLETED', 'Stopped early.', {}, 'x')], `${shown}\nStopped early.`],
      // Paused for the user: an a2a-python agent that asks about the file it wrote ends it so too.
      [[status('TASK_STATE_INPUT_REQUIRED', 'Apply main.tf now?', {}, 'x')], `${shown}\nApply main.tf now?`],
      [[status('TASK_STATE_FAILED', 'Disk full.', {}, 'x')], `${part}\nDisk full.`],
      [[], `${part}\nThe upstream agent ended the stream before the turn finished`],
    ] as const) {
      const out = run([submitted, ...open, ...ending]);
      expect(readText(out)).toBe(after);
      expect(sent(out)).toBe(readText(out));
    }
  });

  it('held as the agent SDK stores it (one part per chunk, as a non-streaming agent or a closing Task sends it): one file', () => {
    const parts = chunks(ZH, [7, 20], { filename: 'README.md', mediaType: 'text/plain' }).flatMap((event) =>
      'artifactUpdate' in event ? event.artifactUpdate.artifact.parts : [],
    );
    const task: StreamResponse = {
      task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'f', parts }] },
    };
    expect(readText(run([task]))).toBe(`README.md\n\`\`\`markdown\n${ZH}\`\`\``);
    // Streamed, then sent whole again in the Task that closes the stream: shown once.
    const closing: StreamResponse = {
      task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'f', parts }] },
    };
    const streamed = chunks(ZH, [7, 20], { filename: 'README.md', mediaType: 'text/plain' });
    expect(readText(run([submitted, ...streamed, closing]))).toBe(`README.md\n\`\`\`markdown\n${ZH}\`\`\``);
  });
});

describe("a file that stops before its end: its part once, then one line in the turn's language, not a second description", () => {
  const README = { filename: 'README.md', mediaType: 'text/plain' };
  // 说 is bytes 2..4 of ZH, 明 bytes 5..7.
  const cutInside = chunks(Buffer.from(ZH).subarray(0, 7), [3], README);

  it('its last chunk ends inside a UTF-8 character', () => {
    const out = run([submitted, ...cutInside, ready]);
    const read = 'README.md\n```markdown\n# 说\n```\n(README.md was cut off: the agent did not finish it)\nThe file is ready.';
    expect(readText(out)).toBe(read);
    expect(sent(out)).toBe(read);
  });

  it('the turn ends while a character waits for the next chunk, in Chinese and Japanese', () => {
    const open = chunks(ZH, [3, 7], README).slice(0, 2);
    const stopped = status('TASK_STATE_FAILED', '磁盘已满。', {}, 'x');
    const zh = run([submitted, ...open, stopped], options(undefined, { words: facadeWords('zh') }));
    expect(readText(zh)).toBe('README.md\n```markdown\n# 说\n```\n（README.md 被截断：智能体没有写完该文件）\n磁盘已满。');
    expect(sent(zh)).toBe(readText(zh));
    const ja = run([submitted, ...open, stopped], options(undefined, { words: facadeWords('ja') }));
    expect(readText(ja)).toBe('README.md\n```markdown\n# 说\n```\n（README.md は途中で切れています：エージェントが書き終えていません）\n磁盘已满。');
  });

  it('a file that is no text: the line instead of its description when the turn fails; described when it completes', () => {
    const png = chunks(Buffer.alloc(300, 7), [100, 200], { filename: 'logo.png', mediaType: 'image/png' }).slice(0, 2);
    const failed = run([submitted, writing, ...png, status('TASK_STATE_FAILED', 'Disk full.', {}, 'x')]);
    expect(readText(failed)).toBe('Writing the file.\n(logo.png was cut off: the agent did not finish it)\nDisk full.');
    expect(sent(failed)).toBe(readText(failed));
    const out = run([submitted, writing, ...png, ready]);
    expect(readText(out)).toBe('Writing the file.\nlogo.png (image/png, 200 bytes)\nThe file is ready.');
    expect(sent(out)).toBe(readText(out));
  });
});

describe('a file that is no readable text, streamed in chunks', () => {
  it('is described once, with its whole size, when its last chunk comes', () => {
    const png = Buffer.alloc(300, 7);
    const out = run([submitted, writing, ...chunks(png, [100, 200], { filename: 'logo.png', mediaType: 'image/png' }), ready]);
    expect(readText(out)).toBe('Writing the file.\nlogo.png (image/png, 300 bytes)\nThe file is ready.');
    expect(sent(out)).toBe(readText(out));
    // Progress between its chunks does not describe it before its end.
    const [a, b, c] = chunks(png, [100, 200], { filename: 'logo.png', mediaType: 'image/png' });
    expect(readText(run([submitted, a!, b!, progress(1), c!, ready]))).toBe('Progress 1.\nlogo.png (image/png, 300 bytes)\nThe file is ready.');
  });

  it('a text file that is not UTF-8, or grows past the inline limit, is shown as far as it is text, then described with its size', () => {
    const latin1 = Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xff, 0xfe])]);
    expect(readText(run([submitted, ...chunks(latin1, [3]), ready]))).toBe(
      'main.tf\n```hcl\nok\n```\nmain.tf (text/plain, 5 bytes)\nThe file is ready.',
    );
    // Not text from its first chunk: described, nothing of its bytes shown.
    expect(readText(run([submitted, ...chunks(Buffer.from([0xff, 0x41, 0x42]), [1]), ready]))).toBe(
      'main.tf (text/plain, 3 bytes)\nThe file is ready.',
    );
    const small = options(undefined, { inlineMaxBytes: 10 });
    expect(readText(run([submitted, ...chunks(TF, [7, 20]), ready], small))).toBe(
      `main.tf\n\`\`\`hcl\nresourc\n\`\`\`\nmain.tf (text/plain, ${Buffer.byteLength(TF)} bytes)\nThe file is ready.`,
    );
  });
});

describe('any text file, cut anywhere', () => {
  it('reads as the file sent whole, in message/stream and message/send, with progress between its chunks or not', () => {
    // No backticks: the fence is chosen from the first chunk, so a longer run in a later one is the known exception.
    const char = fc.constantFrom('a', ' ', '\n', '说', 'é', '😀', '{', '日');
    fc.assert(
      fc.property(
        fc.array(char, { maxLength: 40 }).map((chars) => Buffer.from(chars.join(''))),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (bytes, at, withProgress) => {
          const cuts = [...new Set(at.map((n) => (bytes.length === 0 ? 0 : n % bytes.length)))].filter((n) => n > 0).sort((a, b) => a - b);
          const pieces = chunks(bytes, cuts);
          const [head, ...rest] = pieces;
          // Progress after an appended chunk waits for the file's end (one right after the first chunk closes it).
          const middle = withProgress ? rest.flatMap((piece, i) => (i < rest.length - 1 ? [piece, progress(i)] : [piece])) : rest;
          const out = run([submitted, writing, head!, ...middle, ready]);
          const whole = renderPart({ raw: bytes.toString('base64'), filename: 'main.tf', mediaType: 'text/plain' }, options());
          const held = withProgress
            ? rest
                .slice(0, -1)
                .map((_, i) => `\nProgress ${i}.`)
                .join('')
            : '';
          expect(readText(out)).toBe(`Writing the file.\n${whole}${held}\nThe file is ready.`);
          expect(sent(out)).toBe(readText(out));
        },
      ),
      { numRuns: 300 },
    );
  });
});
