/**
 * A Bailian user's message/stream drops right after iac-code's last words and before its permission prompt
 * reached them (its bytes may have been written to a connection already closed). The user never read the prompt,
 * and sends "好的" (the kind of message the facade suggests after a cut: "发送任意消息（例如“继续”）"): it must show
 * the prompt, not pass "好的" on as consent to a write the user was never asked about.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { streamHungUpAt } from './hung-up-stream.js';

describe.each(['open', 'parked'] as const)('iac-code prompt waiting %s', (permissionWait) => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    // The prompt comes a moment after the text, once the hang-up has reached the gateway: relayed to no one. (A
    // prompt written before the caller's hang-up reached the gateway counts as read: a client that closes the
    // connection once it read a stream, as many do, must not be asked every question twice; docs/facade-reply.md.)
    fake = await startFakeIacCode({
      script: { before: ['我将', '写入模板。'], after: ['已写入。'], artifact: { filename: 'main.tf' }, permission: true },
      permissionWait,
      frameDelayMs: 200,
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });

  it('"好的" after a hang-up before the prompt was read shows the prompt and grants nothing', async () => {
    const read = await streamHungUpAt(gateway.url, '请生成 VPC、ECS 和 RDS 的模板', '写入模板。');
    expect(read.raw).not.toContain('是否允许');
    await fake.rpcRequests('SendStreamingMessage').at(-1)!.closed;
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '好的', contextId: read.contextId }) });
    const answers = fake.rpcRequests('SendStreamingMessage').slice(1);
    expect(answers.map((r: any) => r.body.params.message.parts[0]?.data?.decision)).toEqual([]);
    expect(sentText(next.body.result)).toContain('是否允许本次操作');
    // Now read, the prompt waits for the answer: Bailian is to route the user's next message back here.
    expect(next.body.result.status.state).toBe('input-required');
  });
});
