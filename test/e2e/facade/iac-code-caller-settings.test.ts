/**
 * `upstream.caller-settings` in front of the fake iac-code: of the per-turn settings iac-code reads from
 * `metadata.iac_code` (model, LLM key, cloud credentials, run mode, folder), only the allowed ones reach
 * it, from a 1.0 caller (message and request metadata alike) and from a facade caller; the turn is
 * answered as before. Without the setting every key passes, as iac-code has it.
 */
import { describe, expect, it } from 'vitest';
import { turnMetadata } from '../../support/fake-iac-code-turn-settings.js';
import type { FakeIacCode } from '../../support/fake-iac-code.js';
import { fakeIacCodeBehindGateway, openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';
import { userMessage as v1Message } from '../../support/v1-message.js';

const SETTINGS = {
  iac_code_model: 'the-costly-one',
  iac_code_api_key: 'sk-caller',
  alibaba_cloud_access_key_id: 'LTAI-caller',
  alibaba_cloud_region_id: 'cn-shanghai',
  run_mode: 'pipeline',
  cwd: '/etc',
};

/** The iac_code settings of the agent's last turn, read as iac-code reads them. */
function lastSettings(fake: FakeIacCode): unknown {
  const turns = fake.rpcRequests().filter((request) => request.rpcMethod === 'SendMessage' || request.rpcMethod === 'SendStreamingMessage');
  const params = (turns.at(-1)!.body as any).params;
  return { read: (turnMetadata(params) as any)?.iac_code, inMessage: params.message.metadata?.iac_code };
}

const v1 = (url: string, params: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
  }).then((response) => response.json() as Promise<{ result?: any; error?: any }>);

/** `a2a_bridge_caller_settings_removed_total` of one surface, as scraped from the gateway. */
async function removedTurns(url: string, surface: string): Promise<number> {
  const metrics = await fetch(`${url}/metrics`).then((response) => response.text());
  return Number(new RegExp(`a2a_bridge_caller_settings_removed_total\\{surface="${surface}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
}

describe('upstream.caller-settings: only the allowed per-turn settings reach iac-code', () => {
  const running = fakeIacCodeBehindGateway({ 'caller-settings': ['alibaba_cloud_region_id'] });
  const allowed = { alibaba_cloud_region_id: 'cn-shanghai' };

  it('a 1.0 caller: the rest is taken out of the message metadata and the request metadata; the turn is answered and counted', async () => {
    const before = await removedTurns(running.gateway.url, 'jsonrpc');
    const answer = await v1(running.gateway.url, {
      message: v1Message('make a vpc', { metadata: { iac_code: SETTINGS, trace: 'keep' } }),
      metadata: { iac_code: SETTINGS },
    });
    expect(answer.error).toBeUndefined();
    const said = (answer.result.task.history as any[]).flatMap((message) => message.parts.map((part: any) => part.text ?? '')).join('');
    expect(said).toContain('Hello world.');
    expect(lastSettings(running.fake)).toEqual({ read: allowed, inMessage: allowed });
    const params = (running.fake.rpcRequests().at(-1)!.body as any).params;
    expect(params.message.metadata.trace).toBe('keep');
    expect(await removedTurns(running.gateway.url, 'jsonrpc')).toBe(before + 1);
  });

  it('a facade caller: the same over message/send and message/stream, and the Bailian user reads the reply in both', async () => {
    const message = () => userMessage({ text: 'make a vpc', metadata: { iac_code: SETTINGS } });
    const before = await removedTurns(running.gateway.url, 'v025');
    const answer = await rpc(running.gateway.url, 'message/send', { message: message() });
    expect(sentText(answer.body.result)).toContain('Hello world.');
    // The language the facade read in the user's words is the gateway's own setting: it is not taken out.
    const withLanguage = { ...allowed, preferredLanguage: 'en' };
    expect(lastSettings(running.fake)).toEqual({ read: withLanguage, inMessage: withLanguage });
    const stream = await openStream(`${running.gateway.url}/stream`, 'message/stream', { message: message() });
    expect(streamedText(results(await stream.rest()))).toContain('Hello world.');
    expect(lastSettings(running.fake)).toEqual({ read: withLanguage, inMessage: withLanguage });
    expect(await removedTurns(running.gateway.url, 'v025')).toBe(before + 2);
  });
});

describe('without upstream.caller-settings every setting passes', () => {
  const running = fakeIacCodeBehindGateway();

  it("a 1.0 caller's settings reach iac-code as sent", async () => {
    const answer = await v1(running.gateway.url, { message: v1Message('make a vpc', { metadata: { iac_code: SETTINGS } }) });
    expect(answer.error).toBeUndefined();
    expect(lastSettings(running.fake)).toEqual({ read: SETTINGS, inMessage: SETTINGS });
  });
});
