/**
 * A turn the gateway cannot even begin (its agent unreachable) is answered with a 0.2.5 error, not a reply:
 * its message is the gateway's own, so a user who writes Chinese reads it in Chinese, on message/send and
 * message/stream alike; in English for an English turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { freePort } from '../../support/free-port.js';
import { rpc, startFacadeGateway, userMessage } from '../../support/facade.js';

describe('the gateway refusing a facade turn it cannot begin', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ upstream: { url: `http://127.0.0.1:${await freePort()}` } });
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
