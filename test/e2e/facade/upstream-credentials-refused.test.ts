/**
 * An agent that refuses the gateway's credentials (`upstream.auth` wrong: HTTP 401 for its card and its calls)
 * is told to every caller as an agent the gateway cannot use: a Bailian user reads the gateway's words in their
 * language ("暂时无法连接上游智能体"), a 1.0 caller the same words in English; neither reads the gateway's config
 * keys or its token. What went wrong is the operator's: the request's log line (cause) and `/ready`'s warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { rpc, userMessage } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { waitUntil } from '../../support/wait-until.js';

const WRONG_TOKEN = 'wrong-token-0123456789abcdef';

describe.each([
  ['detected from its card (upstream.protocol: auto)', 'auto'],
  ['configured as 1.0 (its calls answered 401)', '1.0'],
])('an agent that refuses the gateway credentials, %s', (_name, protocol) => {
  let fake: FakeIacCode;
  let gateway: TestGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ auth: { token: 'the-right-token-0123456789' } });
    gateway = await startTestGateway({ upstream: { url: fake.url, protocol, auth: { token: WRONG_TOKEN } } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it("a Bailian user reads the gateway's words in their language, on message/send and message/stream; the log says why", async () => {
    for (const path of ['', '/stream']) {
      const method = path ? 'message/stream' : 'message/send';
      const chinese = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text: '你好，帮我创建一个VPC' }) });
      expect(chinese.body.error, method).toStrictEqual({ code: -32603, message: '暂时无法连接上游智能体' });
      const english = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text: 'Hello, create a VPC for me' }) });
      expect(english.body.error, method).toStrictEqual({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
      const line = gateway.requestLog().findLast((one) => one.method === method);
      expect(line, method).toMatchObject({ errorCode: -32603, cause: expect.stringMatching(/HTTP 401.*upstream\.auth/) });
      // The path the agent refused is a URL's, no local path to scrub: the operator reads which one.
      if (protocol === 'auto') expect(line?.cause, method).toContain('for its card at /.well-known/agent-card.json (HTTP 401)');
    }
  });

  it('a 1.0 caller reads the same words, no config key and no token', async () => {
    const answer = await rpc(
      `${gateway.url}/`,
      'SendMessage',
      { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      { headers: { 'a2a-version': '1.0' } },
    );
    expect(answer.body.error).toStrictEqual({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
    expect(answer.text).not.toContain('upstream.');
    expect(JSON.stringify(gateway.log())).not.toContain(WRONG_TOKEN);
  });

  it('/ready says the credentials were refused, not that the agent cannot be reached', async () => {
    await waitUntil(async () => (await fetch(`${gateway.url}/ready`)).status === 503, 10_000);
    const warning = gateway.log().find((line) => typeof line.msg === 'string' && line.msg.startsWith('/ready: not ready'));
    expect(warning?.msg).toBe("/ready: not ready, the upstream agent refused the gateway's credentials (HTTP 401/403: check upstream.auth)");
  });
});
