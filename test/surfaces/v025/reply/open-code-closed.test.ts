/**
 * What the facade shows after the agent leaves Markdown code open (a fence its text opened and has not
 * closed, an artifact streamed in code), and a text part that is a file: read both ways, as message/stream
 * sends it and as message/send folds it.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { createReplyFold } from '../../../../src/surfaces/v025/reply/index.js';
import { MAX_HELD_MESSAGES } from '../../../../src/surfaces/v025/reply/open-artifact.js';
import { artifact, options, readText, run, status, submitted } from './support.js';

/** The turn as a Bailian user reads it streamed, after checking message/send (the fold) reads the same. */
function read(events: StreamResponse[]): string {
  const out = run(events, options());
  const fold = createReplyFold();
  for (const event of out) fold.add(event);
  const sent = (fold.result() as { artifacts?: { parts: { kind: string; text?: string }[] }[] }).artifacts ?? [];
  const folded = sent
    .flatMap((a) => a.parts)
    .map((part) => part.text ?? '')
    .join('');
  expect(folded).toBe(readText(out));
  return folded;
}

const working = (text: string, id: string) => status('TASK_STATE_WORKING', text, {}, id);
const OPEN_FENCE = [submitted, working('Run:\n```bash\n', 't1'), working('terraform apply', 't2')];

describe('the agent left a code fence open', () => {
  it('a message that closes the fence itself is not given a second one: its words stay out of code', () => {
    const tokens = [submitted, working('Run:\n```bash\n', 't1'), working('ls\n', 't2')];
    // The whole answer sent again as the reply artifact, after its tokens.
    const whole = artifact('r', [{ text: 'Run:\n```bash\nls\n```\nDone here.' }], { lastChunk: true });
    expect(read([...tokens, whole, status('TASK_STATE_COMPLETED')])).toBe('Run:\n```bash\nls\n```\nDone here.');
    expect(read([...tokens, status('TASK_STATE_INPUT_REQUIRED', '```\nShall I run it?', {}, 'q')])).toBe('Run:\n```bash\nls\n```\nShall I run it?');
    expect(read([...tokens, status('TASK_STATE_COMPLETED', 'terraform apply\n```\nDone now.', {}, 'c')])).toBe(
      'Run:\n```bash\nls\nterraform apply\n```\nDone now.',
    );
  });

  it('a failure reason is shown after the fence, closed', () => {
    expect(read([...OPEN_FENCE, status('TASK_STATE_FAILED', 'Quota exceeded for ECS.', {}, 'f')])).toBe(
      'Run:\n```bash\nterraform apply\n```\nQuota exceeded for ECS.',
    );
  });

  it('a question is shown after the fence, closed', () => {
    expect(read([...OPEN_FENCE, status('TASK_STATE_INPUT_REQUIRED', 'Shall I run it?', {}, 'q')])).toBe(
      'Run:\n```bash\nterraform apply\n```\nShall I run it?',
    );
  });

  it("the facade's own words are shown after the fence, closed", () => {
    expect(read([...OPEN_FENCE, status('TASK_STATE_FAILED')])).toBe(
      'Run:\n```bash\nterraform apply\n```\nThe agent could not complete this request.',
    );
  });

  it('a file is its own block after the fence, closed', () => {
    const file = artifact(
      'main.tf',
      [{ raw: Buffer.from('resource "x" "y" {}\n').toString('base64'), filename: 'main.tf', mediaType: 'text/plain' }],
      {
        lastChunk: true,
      },
    );
    const tokens = [artifact('a', [{ text: 'Run:\n```bash\n' }]), artifact('a', [{ text: 'terraform apply\n' }], { append: true, lastChunk: true })];
    expect(read([submitted, ...tokens, file, status('TASK_STATE_COMPLETED', 'Then check the outputs.', {}, 'd')])).toBe(
      'Run:\n```bash\nterraform apply\n```\nmain.tf\n```hcl\nresource "x" "y" {}\n```\nThen check the outputs.',
    );
  });

  it('a data part is its own block after the fence, closed', () => {
    const data: StreamResponse = {
      statusUpdate: {
        taskId: 'T',
        contextId: 'C',
        status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'd', role: 'ROLE_AGENT', parts: [{ data: { b: 2 } }] } },
      },
    };
    expect(read([submitted, working('Result:\n```', 't1'), working('json\n{"a":1', 't2'), data])).toBe(
      'Result:\n```json\n{"a":1\n```\n```json\n{\n  "b": 2\n}\n```',
    );
  });

  it('a working message that opens with a data part is its own block after the fence, closed', () => {
    const data: StreamResponse = {
      statusUpdate: {
        taskId: 'T',
        contextId: 'C',
        status: { state: 'TASK_STATE_WORKING', message: { messageId: 'd', role: 'ROLE_AGENT', parts: [{ data: { b: 2 } }, { text: 'Checked.' }] } },
      },
    };
    expect(read([...OPEN_FENCE, data, status('TASK_STATE_COMPLETED')])).toBe(
      'Run:\n```bash\nterraform apply\n```\n```json\n{\n  "b": 2\n}\n```\nChecked.',
    );
  });

  it("more of the agent's own running text stays in its code", () => {
    expect(read([...OPEN_FENCE, working('\nterraform output', 't3'), status('TASK_STATE_COMPLETED')])).toBe(
      'Run:\n```bash\nterraform apply\nterraform output',
    );
  });
});

describe('progress while a streamed artifact stands in code', () => {
  const template = (first: string, last: string): StreamResponse[] => [
    artifact('code', [{ text: first }]),
    working('Checking quotas', 'w1'),
    working('Validating template', 'w2'),
    artifact('code', [{ text: last }], { append: true, lastChunk: true }),
  ];

  it('waits for the artifact when its first chunk leaves a fence open, and stands on lines of its own after it', () => {
    const events = [
      submitted,
      ...template('Template:\n```hcl\nresource "alicloud_vpc" "main" {\n', '  cidr_block = "172.16.0.0/12"\n}\n```\n'),
      status('TASK_STATE_COMPLETED', 'Done.', {}, 'd'),
    ];
    expect(read(events)).toBe(
      'Template:\n```hcl\nresource "alicloud_vpc" "main" {\n  cidr_block = "172.16.0.0/12"\n}\n```\nChecking quotas\nValidating template\nDone.',
    );
  });

  it('released by the bound mid-code, is shown outside the code block, each message on its own line', () => {
    const thinking = Array.from({ length: MAX_HELD_MESSAGES + 1 }, (_, i) => working(`Thinking ${i + 1}`, `w${i}`));
    const opened = [submitted, artifact('code', [{ text: 'main.tf:\n```hcl\nresource "alicloud_vpc" "main" {\n  cidr_bl' }]), ...thinking];
    const text = read([...opened, status('TASK_STATE_COMPLETED')]);
    const lines = thinking.map((_, i) => `Thinking ${i + 1}`).join('\n');
    expect(text).toBe(`main.tf:\n\`\`\`hcl\nresource "alicloud_vpc" "main" {\n  cidr_bl\n\`\`\`\n${lines}`);
  });

  it('released by the bound mid-code, has the block opened again under its fence for the rest of the artifact', () => {
    const thinking = Array.from({ length: MAX_HELD_MESSAGES + 1 }, (_, i) => working(`Thinking ${i + 1}`, `w${i}`));
    const events = [
      submitted,
      artifact('code', [{ text: 'main.tf:\n```hcl\nresource "alicloud_vpc" "main" {\n  cidr_bl' }]),
      ...thinking,
      artifact('code', [{ text: 'ock = "172.16.0.0/12"\n}\n```\n' }], { append: true, lastChunk: true }),
      status('TASK_STATE_COMPLETED', 'Done.', {}, 'd'),
    ];
    const lines = thinking.map((_, i) => `Thinking ${i + 1}`).join('\n');
    expect(read(events)).toBe(
      `main.tf:\n\`\`\`hcl\nresource "alicloud_vpc" "main" {\n  cidr_bl\n\`\`\`\n${lines}\n\`\`\`hcl\nock = "172.16.0.0/12"\n}\n\`\`\`\nDone.`,
    );
  });
});

describe('a text part that is a file', () => {
  const TF = '# VPC template\nresource "alicloud_vpc" "main" {\n  cidr_block = "172.16.0.0/12"\n}\n';
  const named = (text: string) => ({ text, filename: 'main.tf', mediaType: 'text/plain' });

  it('sent whole, reads as the same file sent as bytes: its name and a fenced block', () => {
    const asBytes = read([
      submitted,
      artifact('f', [{ raw: Buffer.from(TF).toString('base64'), filename: 'main.tf', mediaType: 'text/plain' }]),
      status('TASK_STATE_COMPLETED'),
    ]);
    expect(asBytes).toBe(`main.tf\n\`\`\`hcl\n${TF}\`\`\``);
    expect(
      read([
        submitted,
        working('Template:', 'w'),
        artifact('f', [named(TF)], { lastChunk: true }),
        status('TASK_STATE_COMPLETED', 'Review it.', {}, 'd'),
      ]),
    ).toBe(`Template:\nmain.tf\n\`\`\`hcl\n${TF}\`\`\`\nReview it.`);
  });

  it('in a message, reads as a file too', () => {
    const message: StreamResponse = {
      statusUpdate: {
        taskId: 'T',
        contextId: 'C',
        status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'd', role: 'ROLE_AGENT', parts: [{ text: 'Here:' }, named(TF)] } },
      },
    };
    expect(read([submitted, message])).toBe(`Here:\nmain.tf\n\`\`\`hcl\n${TF}\`\`\``);
  });

  it('streamed in appended chunks, reads as one file', () => {
    const cut = TF.indexOf('cidr_block') + 4;
    const events = [
      submitted,
      artifact('f', [named(TF.slice(0, cut))], { lastChunk: false }),
      artifact('f', [named(TF.slice(cut))], { append: true, lastChunk: true }),
      status('TASK_STATE_COMPLETED'),
    ];
    expect(read(events)).toBe(`main.tf\n\`\`\`hcl\n${TF}\`\`\``);
  });
});

describe('a named text part past inline-max-bytes', () => {
  it('is shown as the text it was sent as, not only described', () => {
    const big = 'x'.repeat(300 * 1024);
    const message = { messageId: 'c', role: 'ROLE_AGENT', parts: [{ text: big, filename: 'big.txt' }] };
    const done: StreamResponse = {
      statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED', message } },
    } as StreamResponse;
    const text = read([submitted, done]);
    expect(text).toContain(big);
  });
});
