import { afterAll, describe, expect, it } from 'vitest';
import type { CardSnapshot, CardSource } from '../../../src/core/card-source.js';
import type { AgentCard } from '../../../src/model/index.js';
import { PIPELINE_EVENTS_EXTENSION, servesPipelineMode, notePipelineMode } from '../../../src/upstream/iac-code/run-mode.js';
import { capturedLog } from '../../support/captured-log.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const card = (params?: Record<string, unknown>): AgentCard => ({
  name: 'iac-code',
  description: 'd',
  version: '1',
  supportedInterfaces: [{ url: 'http://a/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { extensions: params ? [{ uri: PIPELINE_EVENTS_EXTENSION, params }] : [] },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

const PIPELINE_NOTE = /^the upstream iac-code serves pipeline mode \(IAC_CODE_MODE=pipeline\)/;

describe('iac-code in pipeline mode', () => {
  it('is told by its card: the pipeline-events extension enabled, or its mode named', () => {
    expect(servesPipelineMode(card({ enabled: false, mode: 'normal' }))).toBe(false);
    expect(servesPipelineMode(card())).toBe(false);
    expect(servesPipelineMode(card({ enabled: true, mode: 'pipeline' }))).toBe(true);
    expect(servesPipelineMode(card({ mode: 'pipeline' }))).toBe(true);
  });

  it('is noted once each time the card turns to it', () => {
    const log = capturedLog();
    const listeners: Array<(snapshot: CardSnapshot) => void> = [];
    const cards: CardSource = {
      current: () => ({ card: card({ enabled: true }), fetchedAt: new Date() }),
      upstreamReachable: () => true,
      onChange: (listener) => void listeners.push(listener),
    };
    notePipelineMode(cards, log.logger);
    const publish = (params: Record<string, unknown>) => listeners.forEach((listener) => listener({ card: card(params), fetchedAt: new Date() }));
    publish({ enabled: true, maxBatchEvents: 2 });
    publish({ enabled: false });
    publish({ enabled: true });
    expect(log.messages.filter((message) => PIPELINE_NOTE.test(message))).toHaveLength(2);
  });

  describe('a gateway in front of it', () => {
    const started: Array<FakeIacCode | TestGateway> = [];
    afterAll(async () => {
      for (const running of started.reverse()) await running.close();
    });
    const gatewayFor = async (runMode: 'normal' | 'pipeline') => {
      const fake = await startFakeIacCode({ runMode });
      started.push(fake);
      const gateway = await startTestGateway({ upstream: { url: fake.url } });
      started.push(gateway);
      return gateway.log().filter((line) => PIPELINE_NOTE.test(line.msg));
    };

    it('is noted at start with the mode on (at info level), and nothing is said with the captured (normal) card', async () => {
      expect(await gatewayFor('pipeline')).toEqual([expect.objectContaining({ level: 30 })]);
      expect(await gatewayFor('normal')).toEqual([]);
    });
  });
});
