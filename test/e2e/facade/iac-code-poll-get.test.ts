/**
 * A Bailian caller that sent an iac-code turn `blocking: false` polls it with tasks/get. iac-code gives every text
 * chunk of a turn one message id, the text after a tool call too, and ends the turn with its last words again
 * (`assistantFinal`). Each read must be the start of the reply message/send shows: never the words after the
 * file glued onto those before it, never the last words twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';

describe('iac-code: a turn sent blocking:false, polled with tasks/get', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    const script = { before: ['Drafting ', 'the VPC ', 'template.'], after: ['Wrote ', 'main.tf.'], artifact: { filename: 'main.tf' } };
    fake = await startFakeIacCode({ frameDelayMs: 40, script });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('reads the start of the reply message/send shows, then all of it', async () => {
    const whole = sentText((await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }) })).body.result);
    expect(whole).toBe('Drafting the VPC template.\nmain.tf (text/plain, 14 bytes)\nWrote main.tf.');
    const configuration = { blocking: false, acceptedOutputModes: ['text/plain'] };
    const started = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }), configuration })).body.result;
    const reads: string[] = [];
    for (let polls = 0; polls < 400; polls++) {
      const got = (await rpc(gateway.url, 'tasks/get', { id: started.id })).body.result;
      reads.push(sentText(got));
      if (got.status.state !== 'working' && got.status.state !== 'submitted') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const read of reads) expect(whole.startsWith(read.trimEnd()), JSON.stringify(read)).toBe(true);
    expect(reads.some((read) => read.startsWith('Drafting ') && read !== whole)).toBe(true);
    expect(reads.at(-1)).toBe(whole);
  });
});
