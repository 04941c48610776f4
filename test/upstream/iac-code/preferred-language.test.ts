import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../../../src/model/index.js';
import { onlyAllowedSettings } from '../../../src/upstream/iac-code/caller-settings.js';
import { isIacCodeCard, tellingLanguage } from '../../../src/upstream/iac-code/preferred-language.js';
import { collect } from '../../support/collect.js';
import { ctxOf, recordingUpstream, userMessage } from '../../support/gateway-stubs.js';

const inZh = { ...ctxOf('p'), language: 'zh' };

describe('tellingLanguage: iac-code asked to write in the language the caller writes', () => {
  it("names it in the message's metadata, and in the request's own when that has any, for send and stream", async () => {
    const { port, sent } = recordingUpstream((inner) => tellingLanguage(inner, () => true));
    await port.sendMessage({ message: userMessage({ metadata: { trace: 't' } }) }, inZh);
    await collect(port.sendStreamingMessage({ message: userMessage(), metadata: { iac_code: { alibaba_cloud_region_id: 'cn-hangzhou' } } }, inZh));
    expect(sent.map((request) => [request.message.metadata, request.metadata])).toEqual([
      [{ trace: 't', iac_code: { preferredLanguage: 'zh' } }, undefined],
      [{ iac_code: { preferredLanguage: 'zh' } }, { iac_code: { alibaba_cloud_region_id: 'cn-hangzhou', preferredLanguage: 'zh' } }],
    ]);
  });

  it('leaves alone a turn that asks for a language itself, a call whose surface knows none, and an agent that is not iac-code', async () => {
    const own = { message: userMessage({ metadata: { iac_code: { preferred_language: 'ja' } } }) };
    const iacCode = recordingUpstream((inner) => tellingLanguage(inner, () => true));
    await iacCode.port.sendMessage(own, inZh);
    await iacCode.port.sendMessage({ message: userMessage() }, ctxOf('p'));
    const other = recordingUpstream((inner) => tellingLanguage(inner, () => false));
    await other.port.sendMessage({ message: userMessage() }, inZh);
    expect([...iacCode.sent, ...other.sent].map((request) => request.message.metadata)).toEqual([own.message.metadata, undefined, undefined]);
  });

  it("is the gateway's own setting: caller-settings above it does not take it out", async () => {
    const { port, sent } = recordingUpstream((inner) =>
      onlyAllowedSettings(
        tellingLanguage(inner, () => true),
        [],
      ),
    );
    await port.sendMessage({ message: userMessage({ metadata: { iac_code: { preferredLanguage: 'fr' } } }) }, inZh);
    expect(sent[0]!.message.metadata).toEqual({ iac_code: { preferredLanguage: 'zh' } });
  });

  it("knows iac-code by its card's own extensions", () => {
    const card = (uris: string[]) => ({ capabilities: { extensions: uris.map((uri) => ({ uri })) } }) as unknown as AgentCard;
    expect([
      isIacCodeCard(card(['urn:iac-code:a2a:artifact-metadata:v1'])),
      isIacCodeCard(card(['https://example.com/ext'])),
      isIacCodeCard(undefined),
    ]).toEqual([true, false, false]);
  });
});
