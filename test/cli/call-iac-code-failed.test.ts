/**
 * iac-code's most common failure: its model provider fails mid-turn, FAILED with the reason under the chunks' own
 * message id (`<taskId>-message`). `a2a-bridge call --no-stream` prints what the turn said before it, as --stream
 * does: the chunks share the closing message's id but are not it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { inProcess } from './in-process.js';

let fake: FakeIacCode;
let gateway: RunningGateway;
beforeAll(async () => {
  const script = { before: ['Checking ', 'the quota.'], after: [], artifact: { filename: 'main.tf' }, error: { text: 'Provider overloaded.' } };
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
});
