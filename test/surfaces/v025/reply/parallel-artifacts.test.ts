/**
 * Two artifacts streamed at the same time (their chunks interleaved) each read together: another artifact's
 * updates wait while the first is open, and are shown once it closes (open-artifact.ts). An a2a-js agent sends
 * a first chunk's `lastChunk: false` as nothing, so after a first chunk that says nothing the agent's next
 * event tells whether it goes on. The hold is bounded, as held progress is.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { createTurnReply } from '../../../../src/surfaces/v025/reply/index.js';
import { MAX_HELD_CHARS } from '../../../../src/surfaces/v025/reply/open-artifact.js';
import { artifact, options, readText, run, shape, spec, status, submitted, tool } from './support.js';

const chunk = (id: string, text: string, extra: Record<string, unknown> = {}): StreamResponse => artifact(id, [{ text }], extra);
const more = (id: string, text: string, last = false): StreamResponse => chunk(id, text, { append: true, ...(last ? { lastChunk: true } : {}) });
const file = (id: string, filename: string, text: string, extra: Record<string, unknown> = {}): StreamResponse =>
  artifact(id, [{ raw: Buffer.from(text).toString('base64'), filename, mediaType: 'text/plain' }], extra);
const done = status('TASK_STATE_COMPLETED');

/** What the caller has read after each event, streamed. */
function streamed(events: StreamResponse[]): string[] {
  const reply = createTurnReply(options());
  let read = '';
  return events.map((event) => (read += readText(reply.push(event))));
}

describe('two artifacts streamed at the same time', () => {
  const both = 'Alpha part one, alpha part two.\nBeta part one, beta part two.';

  it('each reads together, the second after the first, whether a first chunk says `lastChunk: false` or nothing (a2a-js)', () => {
    for (const first of [{ lastChunk: false }, {}]) {
      const events = [submitted, chunk('x', 'Alpha part one, ', first), chunk('y', 'Beta part one, ', first)];
      expect(readText(run([...events, more('x', 'alpha part two.', true), more('y', 'beta part two.', true), done]))).toBe(both);
      // The second's chunks wait too, and so does progress after them, in the order they came.
      const later = [more('x', 'alpha part two.'), more('y', 'beta part two.', true), status('TASK_STATE_WORKING', 'Checking', {}, 'w')];
      expect(readText(run([...events, ...later, more('x', ' End.', true), done]))).toBe(
        'Alpha part one, alpha part two. End.\nBeta part one, beta part two.\nChecking',
      );
    }
  });

  it('under a plain 0.2.5 profile each artifact keeps its own identity, so nothing waits', () => {
    const events = [submitted, chunk('x', 'A, '), chunk('y', 'B, '), more('x', 'a.', true), more('y', 'b.', true), done];
    expect(shape(run(events, options(spec))).filter((kind) => kind.startsWith('artifact'))).toEqual([
      'artifact:x:more',
      'artifact:y:more',
      'artifact:x:last',
      'artifact:y:last',
    ]);
  });

  it('the second is shown the moment the first closes, as it streams', () => {
    const seen = streamed([
      submitted,
      chunk('x', 'Alpha, ', { lastChunk: false }),
      chunk('y', 'Beta, '),
      more('x', 'alpha.', true),
      more('y', 'beta.', true),
    ]);
    expect(seen).toEqual(['', 'Alpha, ', 'Alpha, ', 'Alpha, alpha.\nBeta, ', 'Alpha, alpha.\nBeta, beta.']);
  });

  it('after a whole artifact that says nothing of its last chunk, the next one waits for one event only', () => {
    const seen = streamed([submitted, chunk('x', 'Plan.'), chunk('y', 'Answer.'), status('TASK_STATE_WORKING', 'Deploying', {}, 'w')]);
    expect(seen).toEqual(['', 'Plan.', 'Plan.', 'Plan.\nAnswer.\nDeploying']);
    expect(readText(run([submitted, chunk('x', 'Plan.'), chunk('y', 'Answer.'), chunk('z', 'Notes.'), done]))).toBe('Plan.\nAnswer.\nNotes.');
  });

  it('files whose chunks interleave each read as one block under its name', () => {
    const events = [
      submitted,
      file('m', 'main.tf', 'resource "alicloud_vpc" "main" {\n'),
      file('v', 'variables.tf', 'variable "region" {\n'),
      file('m', 'main.tf', '}\n', { append: true, lastChunk: true }),
      file('v', 'variables.tf', '}\n', { append: true, lastChunk: true }),
      done,
    ];
    expect(readText(run(events))).toBe(
      'main.tf\n```hcl\nresource "alicloud_vpc" "main" {\n}\n```\nvariables.tf\n```hcl\nvariable "region" {\n}\n```',
    );
  });

  it('what waits is shown before a tool call, a question or the turn ending, and when the stream breaks off', () => {
    const events = [submitted, chunk('x', 'Alpha, ', { lastChunk: false }), chunk('y', 'Beta, '), more('y', 'beta.')];
    expect(readText(run([...events, tool, more('x', 'alpha.', true), done]))).toBe('Alpha, \nBeta, beta.\nalpha.');
    expect(readText(run([...events, status('TASK_STATE_INPUT_REQUIRED', 'Which region?', {}, 'q')]))).toBe('Alpha, \nBeta, beta.\nWhich region?');
    expect(readText(run(events))).toContain('Alpha, \nBeta, beta.\n');
  });

  it('progress that came before the second artifact is shown once the first stops at a line end; the second still waits', () => {
    const events = [
      submitted,
      chunk('x', 'Alpha ', { lastChunk: false }),
      status('TASK_STATE_WORKING', 'Checking', {}, 'w'),
      chunk('y', 'Beta.'),
      more('x', 'one.\n'),
    ];
    const seen = streamed([...events, more('x', 'Alpha two.', true)]);
    expect(seen.slice(-2)).toEqual(['Alpha one.\nChecking', 'Alpha one.\nChecking\nAlpha two.\nBeta.']);
  });

  it(`a first artifact that never closes holds the second only up to ${MAX_HELD_CHARS} characters; then the second is the one open`, () => {
    const long = 'b'.repeat(MAX_HELD_CHARS / 2);
    const seen = streamed([
      submitted,
      chunk('x', 'Alpha ', { lastChunk: false }),
      chunk('y', long),
      more('y', long),
      more('y', ' end'),
      more('x', 'goes on'),
      done,
    ]);
    expect(seen.slice(-4)).toEqual(['Alpha ', `Alpha \n${long}${long} end`, `Alpha \n${long}${long} end`, `Alpha \n${long}${long} end\ngoes on`]);
  });
});

describe('artifacts streamed at the same time: what the hold must not do', () => {
  it('an a2a-js agent (first chunks say nothing): no artifact’s later chunk is put after another’s that came later', () => {
    const first = [submitted, chunk('a', 'Alpha one, '), chunk('b', 'Beta one, ')];
    // The progress line tells the first was whole (most such first pieces are): the second is shown, and the
    // first one's next chunk, its start already read, is shown where it comes, not held behind the second's.
    const progress = [
      ...first,
      status('TASK_STATE_WORKING', 'Checking quotas', {}, 'w1'),
      more('a', 'alpha two.', true),
      more('b', 'beta two.', true),
    ];
    expect(readText(run([...progress, done]))).toBe('Alpha one, \nBeta one, \nChecking quotas\nalpha two.\nbeta two.');
    // Three at once: the third's first piece tells the first was whole; the first one's next chunk does not
    // tell the second was, so the second reads on together and the third waits for it.
    const three = [
      ...first,
      chunk('c', 'Gamma one, '),
      more('a', 'alpha two.', true),
      more('b', 'beta two, '),
      more('c', 'gamma two.', true),
      more('b', 'beta three.', true),
      done,
    ];
    expect(readText(run(three))).toBe('Alpha one, \nBeta one, \nalpha two.\nbeta two, beta three.\nGamma one, gamma two.');
  });

  it('once the first closes, the second is waited on in turn: a third and progress wait for it, not cut it', () => {
    const three = [
      submitted,
      chunk('a', 'Alpha one, ', { lastChunk: false }),
      chunk('b', 'Beta one, ', { lastChunk: false }),
      chunk('c', 'Gamma one, ', { lastChunk: false }),
      more('a', 'alpha two.', true),
      more('b', 'beta two, '),
      more('c', 'gamma two.', true),
      more('b', 'beta three.', true),
      done,
    ];
    expect(readText(run(three))).toBe('Alpha one, alpha two.\nBeta one, beta two, beta three.\nGamma one, gamma two.');
    const progress = [
      submitted,
      chunk('a', 'Alpha one, ', { lastChunk: false }),
      chunk('b', 'Beta one, ', { lastChunk: false }),
      status('TASK_STATE_WORKING', 'Checking quotas', {}, 'w1'),
      more('a', 'alpha two.', true),
      more('b', 'beta two.', true),
      done,
    ];
    expect(readText(run(progress))).toBe('Alpha one, alpha two.\nBeta one, beta two.\nChecking quotas');
  });

  it('a tool call ends the wait even when nothing waits yet: what follows is shown live', () => {
    const seen = streamed([
      submitted,
      chunk('log', 'Deploy log:\n', { lastChunk: false }),
      tool,
      chunk('plan', 'Plan: 3 resources.'),
      status('TASK_STATE_WORKING', 'Creating VPC', {}, 'w1'),
      status('TASK_STATE_WORKING', 'Creating ECS', {}, 'w2'),
    ]);
    expect(seen.slice(-3)).toEqual([
      'Deploy log:\nPlan: 3 resources.',
      'Deploy log:\nPlan: 3 resources.\nCreating VPC',
      'Deploy log:\nPlan: 3 resources.\nCreating VPC\nCreating ECS',
    ]);
  });

  it('progress after an artifact that stopped at a line’s end and never closes is shown live, with what waited before it', () => {
    const log = [submitted, chunk('log', 'Deploy log:\n', { lastChunk: false }), more('log', 'vpc created\n'), chunk('plan', 'Plan: 3 resources.')];
    const seen = streamed([...log, status('TASK_STATE_WORKING', 'Creating VPC', {}, 'w1'), status('TASK_STATE_WORKING', 'Creating ECS', {}, 'w2')]);
    expect(seen.slice(-3)).toEqual([
      'Deploy log:\nvpc created\n',
      'Deploy log:\nvpc created\nPlan: 3 resources.\nCreating VPC',
      'Deploy log:\nvpc created\nPlan: 3 resources.\nCreating VPC\nCreating ECS',
    ]);
    // The progress line came after the artifact it let through: that one was whole, and the next is shown as it comes.
    const next = streamed([...log, status('TASK_STATE_WORKING', 'Creating VPC', {}, 'w1'), chunk('notes', 'Notes.')]);
    expect(next.at(-1)).toBe('Deploy log:\nvpc created\nPlan: 3 resources.\nCreating VPC\nNotes.');
    // A waiting artifact that says it streams is not cut in: the progress waits with it.
    const streaming = [submitted, chunk('x', 'Alpha one.\n', { lastChunk: false }), chunk('y', 'Beta one, ', { lastChunk: false })];
    const rest = [status('TASK_STATE_WORKING', 'Checking', {}, 'w'), more('x', 'Alpha two.', true), more('y', 'beta two.', true), done];
    expect(readText(run([...streaming, ...rest]))).toBe('Alpha one.\nAlpha two.\nBeta one, beta two.\nChecking');
  });
});
