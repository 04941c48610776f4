/**
 * What a Bailian user reads where one message of an a2a-js 1.x agent (message-boundaries-agent.ts) meets the
 * next, through the facade as Bailian calls it: files, links and data on lines of their own, whole progress
 * messages each on a line, the text parts of one message as two sentences, an artifact streamed in chunks
 * not cut by the progress sent between them; the same in message/send and message/stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, facadeTurnReads, startFacadeGateway } from '../../support/facade.js';
import { CODE_CHUNKS, PROGRESS, startMessageSender } from './message-boundaries-agent.js';

const headers = { 'X-API-KEY': API_KEY };

describe('a Bailian user in front of an agent that sends whole messages, files and data between its words', () => {
  let agent: { url: string; close(): Promise<void> };
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startMessageSender();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const ways = facadeTurnReads(() => gateway.url, headers);
  async function read(prompt: string): Promise<string> {
    const streamed = await ways.stream(prompt);
    expect((await ways.send(prompt)).text).toBe(streamed.text);
    return streamed.text;
  }

  it('a data part, files and a link in working messages: each on lines of its own, the text after it on a new line', async () => {
    const block = '```json\n{\n  "step": 1\n}\n```';
    const file = (name: string) => `${name}\n\`\`\`hcl\ncontent of ${name}\n\`\`\``;
    const link = 'x.pdf: https://example.com/x.pdf';
    expect(await read('parts')).toBe(
      ['Calling the tool', block, file('main.tf'), file('vars.tf'), 'and then', link, 'more text', 'Done.', block].join('\n'),
    );
  });

  it('whole progress messages, each its own id: one a line (after a list item, one that goes on with no list a blank line more)', async () => {
    // Right after "1. Create the VPC" a Markdown reader takes the next line for the rest of that item (blank-after-blocks.test.ts).
    const lines = [...PROGRESS, 'All resources created.'];
    expect(await read('progress')).toBe(
      lines.reduce((shown, line) => `${shown}${/^\d+\. /u.test(shown.split('\n').at(-1)!) ? '\n\n' : '\n'}${line}`),
    );
  });

  it('two text parts of one message: two sentences, the second on a line of its own', async () => {
    expect(await read('multipart')).toBe('First part.\nSecond part.');
  });

  it('progress between the appended chunks of an artifact: after the artifact, not inside its code', async () => {
    // The SDK leaves `lastChunk: false` out, so the first chunk reads as a whole artifact: what comes right after it is shown.
    expect(await read('code')).toBe(`${CODE_CHUNKS[0]}\nProgress 1.\n${CODE_CHUNKS[1]}${CODE_CHUNKS[2]}Progress 2.`);
  });
});
