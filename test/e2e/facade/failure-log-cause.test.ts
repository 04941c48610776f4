/**
 * A facade turn that fails for want of its agent is told to a Bailian user in their language, and logged with
 * what really failed: the request's log line carries the connection's error and its code, on message/send as on
 * message/stream and the 1.0 surface, not the words the user read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, userMessage } from '../../support/facade.js';
import { CLOSED_PORT } from '../../support/free-port.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

describe('a facade turn whose agent cannot be reached, in the log', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ upstream: { url: `http://127.0.0.1:${CLOSED_PORT}` } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('message/send and message/stream log the refused connection as the cause, with its code', async () => {
    for (const path of ['', '/stream']) {
      const method = path ? 'message/stream' : 'message/send';
      const answer = await rpc(`${gateway.url}${path}`, method, { message: userMessage({ text: '你好，帮我创建一个VPC' }) });
      expect(answer.body.error, method).toStrictEqual({ code: -32603, message: '暂时无法连接上游智能体' });
      const line = gateway.requestLog().findLast((one) => one.method === method);
      expect(line, method).toMatchObject({
        errorCode: -32603,
        cause: expect.stringMatching(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
        causeCode: 'ECONNREFUSED',
      });
    }
  });
});
