/**
 * A turn the gateway cannot even begin (its agent unreachable) is answered with a 0.2.5 error, not a reply:
 * its message is the gateway's own, so a user who writes Chinese reads it in Chinese, on message/send and
 * message/stream alike; in English for an English turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { facadeWords, failureReason } from '../../../src/surfaces/v025/reply/index.js';
import { CLOSED_PORT } from '../../support/free-port.js';
import { fakeIacCodeBehindGateway, rpc, startFacadeGateway, userMessage } from '../../support/facade.js';

describe('the gateway refusing a facade turn it cannot begin', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ upstream: { url: `http://127.0.0.1:${CLOSED_PORT}` } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it("says why in the turn's language, on message/send and message/stream", async () => {
    for (const path of ['', '/stream']) {
      const method = path ? 'message/stream' : 'message/send';
      const chinese = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text: '帮我部署一个网站' }) });
      expect(chinese.body.error, method).toMatchObject({ code: -32603, message: '暂时无法连接上游智能体' });
      const english = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text: 'Deploy a website for me' }) });
      expect(english.body.error, method).toMatchObject({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
    }
  });
});

describe('an agent that answers a facade turn with an HTTP error status', () => {
  const running = fakeIacCodeBehindGateway();

  it("is told in the turn's language with its status, on message/send and message/stream", async () => {
    for (const path of ['', '/stream']) {
      const method = path ? 'message/stream' : 'message/send';
      running.fake.injectFault('http-500', { method: 'SendStreamingMessage' });
      const chinese = await rpc(`${running.gateway.url}${path}`, method, { message: userMessage({ text: '帮我部署一个网站' }) });
      expect(JSON.stringify(chinese.body), method).toContain('上游智能体出错（HTTP 500），请稍后重试');
      // Trying again later is said only where it helps: a 5xx or a 429, not a 404.
      expect(failureReason(facadeWords('zh'), 'The upstream agent answered HTTP 404')).toBe('上游智能体出错（HTTP 404）');
      running.fake.injectFault('http-500', { method: 'SendStreamingMessage' });
      const english = await rpc(`${running.gateway.url}${path}`, method, { message: userMessage({ text: 'Deploy a website for me' }) });
      expect(JSON.stringify(english.body), method).toContain('The upstream agent answered HTTP 500');
    }
  });
});

describe('an agent that answers a facade turn other than in JSON-RPC', () => {
  const running = fakeIacCodeBehindGateway();
  const cases = [
    {
      fault: 'non-json',
      en: GATEWAY_FAILURES.notJsonRpcStreamEvent,
      zh: '上游智能体发送了无法识别的流式事件',
      ja: '上流のエージェントが解釈できないストリームイベントを送信しました',
    },
    {
      fault: 'wrong-id',
      en: GATEWAY_FAILURES.answeredAnotherRequest,
      zh: '上游智能体回复的是另一个请求',
      ja: '上流のエージェントが別のリクエストに応答しました',
    },
  ] as const;
  const turns = { zh: '帮我部署一个网站', ja: 'ウェブサイトをデプロイしてください', en: 'Deploy a website for me' } as const;

  for (const { fault, ...told } of cases) {
    it(`${fault}: the gateway's reason in the turn's language, on message/send and message/stream`, async () => {
      for (const path of ['', '/stream']) {
        const method = path ? 'message/stream' : 'message/send';
        for (const language of ['zh', 'ja', 'en'] as const) {
          running.fake.injectFault(fault, { method: 'SendStreamingMessage' });
          const answer = await rpc(`${running.gateway.url}${path}`, method, { message: userMessage({ text: turns[language] }) });
          expect(answer.body.error, `${method} ${language}`).toStrictEqual({ code: -32006, message: told[language] });
        }
      }
    });
  }

  it('the other rare reasons of that kind are told too: a whole answer that is not JSON-RPC, a malformed error event', () => {
    expect(failureReason(facadeWords('zh'), GATEWAY_FAILURES.notJsonRpcAnswer)).toBe('上游智能体返回了无法识别的响应');
    expect(failureReason(facadeWords('ja'), GATEWAY_FAILURES.malformedErrorEvent)).toBe(
      '上流のエージェントが不正な形式のエラーイベントを送信しました',
    );
  });
});
