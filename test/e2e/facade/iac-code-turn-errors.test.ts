/**
 * A Bailian user in front of iac-code whose model provider fails mid-turn (iac-code's ErrorEvent): the turn
 * ends FAILED, or INPUT_REQUIRED when the error is retryable, its message the error's text under the id of
 * the text chunks before it (`<taskId>-message`). The reason starts a line of its own after what the agent
 * said, in message/send as in message/stream, and leaks no path or key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { expectNoLeak, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

describe('facade → iac-code: a provider error after the agent began to answer', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  afterEach(async () => {
    await gateway?.close();
    await fake?.close();
  });

  async function bothModes(text: string): Promise<Array<{ said: string; state: string }>> {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text }) });
    const events = results(await stream.rest());
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text }) });
    return [
      { said: streamedText(events), state: events.at(-1).status.state },
      { said: sentText(sent.body.result), state: sent.body.result.status.state },
    ];
  }

  it('a failure: the reason on a line of its own, without the key or the path it named', async () => {
    const error = 'ProviderError: 401 invalid api key sk-live-0123456789abcdef (see /home/admin/.iac-code/config.yaml)';
    fake = await startFakeIacCode({ script: { before: ['正在', '校验模板'], after: [], artifact: { filename: 'main.tf' }, error: { text: error } } });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    for (const { said, state } of await bothModes('帮我校验一下这个模板是否正确')) {
      expect(state).toBe('failed');
      expect(said).toMatch(/^正在校验模板\nProviderError: 401 invalid api key \S+ \(see \S+\)$/);
      expectNoLeak(said);
    }
  });

  it('a retryable error: iac-code asks to retry, on a line of its own', async () => {
    const retry = 'A temporary error occurred. Please retry.';
    fake = await startFakeIacCode({
      script: { before: ['Let me check ', 'the template.'], after: [], artifact: { filename: 'main.tf' }, error: { text: retry, retryable: true } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    for (const { said, state } of await bothModes('Please check my ROS template')) {
      expect(state).toBe('completed');
      expect(said).toBe(`Let me check the template.\n${retry}`);
    }
  });

  it("a retryable error, then the retry in the same task: tasks/get shows the retry's reply, not the error before it", async () => {
    const retry = 'A temporary error occurred. Please retry.';
    fake = await startFakeIacCode({
      script: { before: ['Let me check ', 'the template.'], after: [], artifact: { filename: 'main.tf' }, error: { text: retry, retryable: true } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    const first = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Please check my ROS template' }) })).body.result;
    const again = userMessage({ text: 'Please retry', contextId: first.contextId });
    const second = (await rpc(gateway.url, 'message/send', { message: again })).body.result;
    expect(second.id).toBe(first.id);
    expect(sentText(second)).toBe(`Let me check the template.\n${retry}`);
    const got = (await rpc(gateway.url, 'tasks/get', { id: second.id })).body.result;
    expect(sentText(got)).toBe(sentText(second));
  });
});
