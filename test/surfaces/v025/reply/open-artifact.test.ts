/**
 * An artifact streamed in chunks with the agent's progress messages between them (Bailian, one reply text):
 * the artifact reads whole, the progress after it; no progress line waits behind an artifact that is not
 * being streamed.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { artifact, options, readText, run, spec, status, submitted, tool } from './support.js';

const chunk = (text: string, extra: Record<string, unknown>): StreamResponse => artifact('code', [{ text }], extra);
const progress = (n: number): StreamResponse => status('TASK_STATE_WORKING', `Progress ${n}.`, {}, `p${n}`);
const CODE = ['resource "alicloud_vpc" "m', 'ain" {\n  cidr_block = "10.', '0.0.0/8"\n}\n'];
const done = status('TASK_STATE_COMPLETED');

describe('progress messages between the chunks of a streamed artifact', () => {
  it('are shown after the artifact, in order, not inside its text', () => {
    const events = [
      submitted,
      chunk(CODE[0]!, { lastChunk: false }),
      progress(1),
      chunk(CODE[1]!, { append: true }),
      progress(2),
      chunk(CODE[2]!, { append: true, lastChunk: true }),
      done,
    ];
    expect(readText(run(events))).toBe(`${CODE.join('')}Progress 1.\nProgress 2.`);
  });

  it('are shown once the artifact stops at a line end outside code, or before whatever else comes', () => {
    const atLineEnd = [submitted, chunk('Line one.\nLine t', { lastChunk: false }), progress(1), chunk('wo.\n', { append: true }), progress(2)];
    expect(readText(run([...atLineEnd, chunk('Line three.', { append: true, lastChunk: true }), done]))).toBe(
      'Line one.\nLine two.\nProgress 1.\nProgress 2.\nLine three.',
    );
    const open = [submitted, chunk('```hcl\nresource "x" {\n', { lastChunk: false }), progress(1)];
    // The artifact's code left open is closed before them: they are not its code.
    expect(readText(run([...open, tool, done]))).toBe('```hcl\nresource "x" {\n```\nProgress 1.');
    expect(readText(run([...open, artifact('other', [{ text: 'Other.' }]), done]))).toBe('```hcl\nresource "x" {\n```\nProgress 1.\nOther.');
    expect(readText(run([...open, status('TASK_STATE_COMPLETED', 'All done.', {}, 'end')]))).toBe(
      '```hcl\nresource "x" {\n```\nProgress 1.\nAll done.',
    );
    // The stream breaks off, or ends, with the artifact open: what was held is still read.
    expect(readText(run(open))).toContain('Progress 1.');
  });

  it('a whole artifact that says nothing of its last chunk is not waited on; nor is anything under a plain 0.2.5 profile', () => {
    expect(readText(run([submitted, artifact('report', [{ text: 'Checked 3 regions' }]), progress(1), done]))).toBe('Checked 3 regions\nProgress 1.');
    const out = run(
      [submitted, chunk(CODE[0]!, { lastChunk: false }), progress(1), chunk(CODE[1]!, { append: true, lastChunk: true }), done],
      options(spec),
    );
    const said = out.flatMap((event) =>
      event.kind === 'artifact-update' ? [event.artifact.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('')] : [],
    );
    expect(said.filter((text) => text !== '')).toEqual([CODE[0], 'Progress 1.', CODE[1]]);
  });
});
