/**
 * An artifact the turn showed may come again: grown or rewritten (`append: false`, the same id), or in the
 * Task that closes the stream, which carries every artifact whole. A reader sees each of its words once,
 * whatever came between, for artifacts of text, of files and of data, in every profile.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import type { V025StreamEvent } from '../../../../src/protocol/v025/index.js';
import { artifact, options, readText, run, spec, status, submitted } from './support.js';

const closing = (artifacts: Array<{ artifactId: string; parts: Array<Record<string, unknown>> }>): StreamResponse => ({
  task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' }, artifacts },
});
const FILE = { url: 'https://files.example.com/plan.pdf', filename: 'plan.pdf', mediaType: 'application/pdf' };
const DATA = { data: { region: 'cn-hangzhou', vpcs: 2 } };

const times = (text: string, word: string): number => text.split(word).length - 1;
const updatesOf = (out: V025StreamEvent[], artifactId: string) =>
  out.filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === artifactId);

describe('an artifact shown, then sent again whole', () => {
  it('grown after it restated the reply: only what it adds', () => {
    const answer = status('TASK_STATE_WORKING', 'The plan is ready.', {}, 'w');
    const grown = (text: string) => artifact('plan', [{ text }]);
    const out = run([
      submitted,
      answer,
      grown('The plan is ready. Step 1: VPC.'),
      grown('The plan is ready. Step 1: VPC. Step 2: ECS.'),
      status('TASK_STATE_COMPLETED'),
    ]);
    expect(readText(out)).toBe('The plan is ready.\nStep 1: VPC. Step 2: ECS.');
  });

  it('grown after chunks that ended in a blank or a line break: the blank is not shown twice', () => {
    const chunk = (text: string) => artifact('reply', [{ text }], { append: true });
    const done = status('TASK_STATE_COMPLETED');
    const words = readText(
      run([submitted, artifact('reply', [{ text: 'SDK ' }]), chunk('echo '), artifact('reply', [{ text: 'SDK echo (turn 1): one two' }]), done]),
    );
    expect(words).toBe('SDK echo (turn 1): one two');
    const code = readText(run([submitted, artifact('tpl', [{ text: 'a:\n' }]), artifact('tpl', [{ text: 'a:\n\n  b: 1\n' }]), done]));
    expect(code).toBe('a:\n\n  b: 1\n');
  });

  it('grown after other words came between: what it adds, on a line of its own', () => {
    const out = run([
      submitted,
      artifact('report', [{ text: 'Checked 3 regions.' }]),
      status('TASK_STATE_WORKING', 'Checking quotas...', {}, 'w'),
      artifact('report', [{ text: 'Checked 3 regions. Quotas are fine.' }]),
      status('TASK_STATE_COMPLETED'),
    ]);
    expect(readText(out)).toBe('Checked 3 regions.\nChecking quotas...\nQuotas are fine.');
  });
});

describe('a Task that closes the stream, carrying what the stream showed', () => {
  it('an artifact streamed in chunks with other words between is not shown again', () => {
    const chunk = (text: string, extra: Record<string, unknown> = {}) => artifact('tpl', [{ text }], { append: true, ...extra });
    const events = [
      submitted,
      artifact('tpl', [{ text: 'ROSTemplateFormatVersion: 2015-09-01\n' }]),
      chunk('Resources:\n'),
      status('TASK_STATE_WORKING', 'Writing the VPC...', {}, 'w'),
      chunk('  Vpc: {Type: ALIYUN::ECS::VPC}\n', { lastChunk: true }),
    ];
    const template = 'ROSTemplateFormatVersion: 2015-09-01\nResources:\n  Vpc: {Type: ALIYUN::ECS::VPC}\n';
    const parts = [{ text: 'ROSTemplateFormatVersion: 2015-09-01\n' }, { text: 'Resources:\n' }, { text: '  Vpc: {Type: ALIYUN::ECS::VPC}\n' }];
    const shown = readText(run([...events, closing([{ artifactId: 'tpl', parts }])]));
    expect(times(shown, 'Resources:')).toBe(1);
    // The same when the agent's Task holds the artifact as one text part.
    expect(times(readText(run([...events, closing([{ artifactId: 'tpl', parts: [{ text: template }] }])])), 'Resources:')).toBe(1);
  });

  it('a file streamed in chunks is not shown again when the Task carries it whole, in one part', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const file = (text: string) => ({ raw: b64(text), filename: 'x.tf', mediaType: 'text/plain' });
    const events = [submitted, artifact('tpl', [file('a = 1\n')]), artifact('tpl', [file('b = 2\n')], { append: true, lastChunk: true })];
    for (const profile of [options(), options(spec)]) {
      const out = run([...events, closing([{ artifactId: 'tpl', parts: [file('a = 1\nb = 2\n')] }])], profile);
      expect(times(JSON.stringify(out), b64('a = 1\nb = 2\n')), 'the whole file again').toBe(0);
      if (profile.replyArtifacts === 'single') expect(times(readText(out), 'a = 1')).toBe(1);
    }
  });

  it('plain 0.2.5: a file or data artifact keeps its identity and is sent once', () => {
    for (const parts of [[FILE], [DATA], [{ text: 'Your plan:' }, FILE]]) {
      const out = run(
        [
          submitted,
          status('TASK_STATE_WORKING', 'Done soon.', {}, 'w'),
          artifact('a1', parts, { lastChunk: true }),
          closing([{ artifactId: 'a1', parts }]),
        ],
        options(spec),
      );
      expect(updatesOf(out, 'a1'), JSON.stringify(parts)).toHaveLength(1);
    }
  });

  it('plain 0.2.5: an artifact the Task carries changed is sent again, as the agent changed it', () => {
    const out = run(
      [submitted, status('TASK_STATE_WORKING', 'Done soon.', {}, 'w'), artifact('a1', [FILE]), closing([{ artifactId: 'a1', parts: [DATA] }])],
      options(spec),
    );
    expect(updatesOf(out, 'a1')).toHaveLength(2);
  });

  it('bailian: a file or data artifact is read once', () => {
    for (const parts of [[FILE], [DATA], [{ text: 'Your plan:' }, FILE]]) {
      const out = run([
        submitted,
        status('TASK_STATE_WORKING', 'Done soon.', {}, 'w'),
        artifact('a1', parts),
        closing([{ artifactId: 'a1', parts }]),
      ]);
      const text = readText(out);
      expect(times(text, 'https://files.example.com') + times(text, 'cn-hangzhou'), text).toBe(1);
    }
  });
});

describe('an artifact streamed in append chunks of different kinds', () => {
  const PARTS: Array<Record<string, unknown>> = [
    { text: 'Here is the template:' },
    { raw: Buffer.from('resource "alicloud_vpc" "main" {}\n').toString('base64'), filename: 'main.tf', mediaType: 'text/plain' },
    { data: { region: 'cn-hangzhou' } },
    { url: 'https://files.example.com/diagram.png', filename: 'diagram.png', mediaType: 'image/png' },
    { text: 'Apply it with ' },
    { text: 'ros.' },
  ];

  it('bailian: reads as the same artifact sent in one event', () => {
    const whole = readText(run([submitted, artifact('tpl', PARTS), status('TASK_STATE_COMPLETED')]));
    const chunks = PARTS.map((part, at) => artifact('tpl', [part], at === 0 ? {} : { append: true }));
    expect(readText(run([submitted, ...chunks, status('TASK_STATE_COMPLETED')]))).toBe(whole);
    expect(whole).toContain('Here is the template:\nmain.tf\n```hcl\n');
    expect(whole).toContain('```\n```json\n');
    expect(whole).toContain('\ndiagram.png: https://files.example.com/diagram.png\nApply it with ros.');
  });
});

describe("the task's artifacts from before the turn", () => {
  const earlier = [
    { artifactId: 'log', parts: [{ text: 'Log: started.' }] },
    { artifactId: 'plan', parts: [{ text: 'The plan: one VPC.' }] },
  ];
  const answered = (artifacts: Array<{ artifactId: string; parts: Array<{ text: string }> }>): StreamResponse => ({
    task: {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Booked for tomorrow.' }] } },
      artifacts,
    },
  });

  it("a non-streaming agent's answer: what the turn added to a grown artifact, nothing of an unchanged one", () => {
    const grown = [{ artifactId: 'log', parts: [{ text: 'Log: started. Booked.' }] }, earlier[1]!];
    expect(readText(run([answered(grown)], options(undefined, { earlierArtifacts: earlier })))).toBe('Booked.\nBooked for tomorrow.');
    // Grown by a line of its own, it does not open the reply with a blank line.
    const byALine = [{ artifactId: 'log', parts: [{ text: 'Log: started.\nBooked.' }] }];
    expect(readText(run([answered(byALine)], options(undefined, { earlierArtifacts: earlier })))).toBe('Booked.\nBooked for tomorrow.');
  });

  it('a streaming agent that sends an artifact of the same id again says it anew: shown whole, also with the same words', () => {
    const again = [submitted, artifact('plan', earlier[1]!.parts), status('TASK_STATE_COMPLETED')];
    expect(readText(run(again, options(undefined, { earlierArtifacts: earlier })))).toBe('The plan: one VPC.');
  });
});

describe('two artifacts that read the same', () => {
  const RESULT = { data: { status: 'ok', drift: false } };

  it('are two results: each is shown, streamed or in one finished Task', () => {
    const streamed = run([
      submitted,
      status('TASK_STATE_WORKING', 'Checking vpc-1.', {}, 'w1'),
      artifact('vpc-1', [RESULT]),
      status('TASK_STATE_WORKING', 'Checking vpc-2.', {}, 'w2'),
      artifact('vpc-2', [RESULT]),
      status('TASK_STATE_COMPLETED'),
    ]);
    expect(times(readText(streamed), '"drift": false')).toBe(2);
    const pass = [
      { artifactId: 'r1', parts: [{ text: 'Result: PASS' }] },
      { artifactId: 'r2', parts: [{ text: 'Result: PASS' }] },
    ];
    expect(
      times(readText(run([submitted, artifact('r1', pass[0]!.parts), artifact('r2', pass[1]!.parts), status('TASK_STATE_COMPLETED')])), 'PASS'),
    ).toBe(2);
    expect(times(readText(run([closing(pass)])), 'PASS')).toBe(2);
  });

  it('but an artifact that holds what a message said is still that message again', () => {
    const out = run([
      submitted,
      status('TASK_STATE_WORKING', 'Result: PASS', {}, 'w'),
      artifact('r1', [{ text: 'Result: PASS' }]),
      artifact('r2', [{ text: 'Result: PASS' }]),
      status('TASK_STATE_COMPLETED'),
    ]);
    expect(readText(out)).toBe('Result: PASS');
  });
});
