/**
 * iac-code's most common failure: its model provider fails mid-turn, FAILED with the reason under the chunks' own
 * message id (`<taskId>-message`). `a2a-bridge call --no-stream` prints what the turn said before it, as --stream
 * does: the chunks share the closing message's id but are not it. iac-code gives every turn's chunks that id, so a
 * follow-up turn's answer is the history after its user's message: the turn before it is not said again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { inProcess } from './in-process.js';

const FAILING = { before: ['Checking ', 'the quota.'], after: [], error: { text: 'Provider overloaded.' } };
/** What the fake's model says next (its turns read it as they start). */
const script: { before: string[]; after: string[]; artifact: { filename: string }; error?: { text: string } } = {
  ...FAILING,
  artifact: { filename: 'main.tf' },
};

let fake: FakeIacCode;
let gateway: RunningGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({ script });
  gateway = await startGateway(defaultConfig({ port: 0, upstream: { url: fake.url } }), createLogger('silent'));
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

describe('a2a-bridge call in front of iac-code, a turn its provider fails', () => {
  it('--no-stream prints what the turn said and why it failed, as --stream does', async () => {
    const streamed = await inProcess(['call', gateway.url, 'check quota', '--protocol', '1.0', '--stream']);
    const blocking = await inProcess(['call', gateway.url, 'check quota', '--protocol', '1.0', '--no-stream']);
    expect(streamed.stdout).toContain('Checking the quota.');
    expect(blocking.stdout).toBe(streamed.stdout);
    expect(blocking.stderr).toContain('Provider overloaded.');
  });

  it('a follow-up turn after one that waits for input: --no-stream prints that turn alone, as --stream does', async () => {
    const idsOf = (stderr: string) => ['--task', /^task: (\S+)$/m.exec(stderr)![1]!, '--context', /^context: (\S+)$/m.exec(stderr)![1]!];
    const followUp = async (mode: string) => {
      Object.assign(script, { before: ['Earlier ', 'words. '], after: ['Earlier after.'] });
      delete script.error;
      const first = await inProcess(['call', gateway.url, 'plan a bucket', '--protocol', '1.0', '--stream']);
      expect(first.stderr).toContain('state: input-required');
      Object.assign(script, FAILING);
      return inProcess(['call', gateway.url, 'go on', '--protocol', '1.0', mode, ...idsOf(first.stderr)]);
    };
    const streamed = await followUp('--stream');
    const blocking = await followUp('--no-stream');
    expect(streamed.stdout).toBe('Checking the quota.\n');
    expect(blocking.stdout).toBe(streamed.stdout);
    expect(blocking.stderr).toContain('Provider overloaded.');
  });
});
