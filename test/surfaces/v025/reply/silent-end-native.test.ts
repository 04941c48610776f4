/**
 * Under `bailian.render-parts: native` a file, data or link part is sent as a part of its own, not as text:
 * a turn whose answer is such a part said something, so it is not told "finished without a reply" (unsaid-end.ts).
 */
import { describe, expect, it } from 'vitest';
import type { V025StreamEvent } from '../../../../src/protocol/v025/index.js';
import { artifact, options, readText, run, status, submitted } from './support.js';

const native = options(undefined, { renderParts: 'native' });
const sentKinds = (out: V025StreamEvent[]): string[] =>
  out.flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts.map((part) => part.kind) : []));

const FILE = { raw: Buffer.from('resource "x" "y" {}\n').toString('base64'), filename: 'main.tf', mediaType: 'text/plain' };
const DATA = { data: { ok: true } };
const LINK = { url: 'https://example.com/r.pdf', filename: 'r.pdf', mediaType: 'application/pdf' };

describe('a turn whose answer is a part sent natively', () => {
  it('is not told it finished without a reply: a file, data or a link', () => {
    for (const part of [FILE, DATA, LINK]) {
      const out = run([submitted, artifact('a', [part], { lastChunk: true }), status('TASK_STATE_COMPLETED')], native);
      expect(readText(out)).toBe('');
      expect(sentKinds(out).filter((kind) => kind !== 'text')).toHaveLength(1);
    }
  });

  it('nor, waiting for an answer, that it said nothing', () => {
    const out = run([submitted, artifact('a', [FILE], { lastChunk: true }), status('TASK_STATE_INPUT_REQUIRED')], native);
    expect(readText(out)).toBe('');
  });

  it('a turn that sent nothing at all still is', () => {
    expect(readText(run([submitted, status('TASK_STATE_COMPLETED')], native))).toBe('The agent finished without a reply.');
  });
});
