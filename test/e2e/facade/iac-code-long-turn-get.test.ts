/**
 * A long iac-code turn read with tasks/get: iac-code keeps every streamed piece as a history message of its own,
 * so a turn of more pieces than the registry keeps (`tasks.history-limit`) outgrows the registry's copy of the
 * task. tasks/get must still show the reply message/send showed from its first word, read from the agent's task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';

describe('iac-code: a turn longer than the registry keeps, read with tasks/get', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    const before = Array.from({ length: 250 }, (_, i) => `w${i} `);
    fake = await startFakeIacCode({ script: { before, after: ['Done.'], artifact: { filename: 'main.tf' } } });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('shows the whole reply message/send showed, its first words too', async () => {
    const sent = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Explain VPCs' }) })).body.result;
    expect(sentText(sent).startsWith('w0 w1 w2 ')).toBe(true);
    const got = (await rpc(gateway.url, 'tasks/get', { id: sent.id })).body.result;
    expect(got.status.state).toBe('completed');
    expect(sentText(got)).toBe(sentText(sent));
  });
});
