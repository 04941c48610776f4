/**
 * A 0.2.5 caller's `configuration.historyLength` (0.2.5 gives it no meaning on a stream) does not cut what
 * a Bailian user reads of a turn: the facade reads the turn from its Task events whole, and asks the agent
 * without it, on message/send and message/stream alike.
 */
import { describe, expect, it } from 'vitest';
import { fakeIacCodeBehindGateway, openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';

describe('a facade turn with configuration.historyLength', () => {
  const running = fakeIacCodeBehindGateway();
  const params = (text: string, configuration?: Record<string, unknown>) => ({
    message: userMessage({ text }),
    ...(configuration ? { configuration } : {}),
  });
  const streamed = async (configuration?: Record<string, unknown>) =>
    streamedText(results(await (await openStream(`${running.gateway.url}/stream`, 'message/stream', params('Hello', configuration))).rest()));
  const sent = async (configuration?: Record<string, unknown>) =>
    sentText((await rpc(running.gateway.url, 'message/send', params('Hello', configuration))).body.result);

  it('reads as the same turn without it, both ways, and the agent is asked without it', async () => {
    const cut = { acceptedOutputModes: ['text/plain'], historyLength: 0 };
    const whole = await streamed();
    expect(whole).not.toBe('');
    expect(await streamed(cut)).toBe(whole);
    expect(await sent(cut)).toBe(await sent());
    const asked = running.fake.rpcRequests('SendStreamingMessage').map((request) => JSON.stringify(request.body));
    expect(asked.length).toBeGreaterThanOrEqual(4);
    for (const body of asked) expect(body).not.toContain('historyLength');
  });
});

describe('a fractional historyLength', () => {
  const running = fakeIacCodeBehindGateway();

  it('is told it must be an integer, on tasks/get and message/send (zod\'s own words read "expected int, received number")', async () => {
    const got = await rpc(running.gateway.url, 'tasks/get', { id: 'task-1', historyLength: 1.5 });
    expect(got.body.error).toEqual({ code: -32602, message: 'Invalid params: historyLength: must be an integer' });
    const sent = await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: 'Hello' }), configuration: { historyLength: 0.5 } });
    expect(sent.body.error).toEqual({ code: -32602, message: 'Invalid params: configuration.historyLength: must be an integer' });
  });
});
