/**
 * A Bailian user whose message/stream drops while iac-code streams its reply in quick chunks, and who then sends
 * the next message, reads the rest of the reply from the first words they did not read: the chunk that came
 * after the hang-up, before the gateway saw it, was written to no one and is shown then.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { streamHungUpAt } from './hung-up-stream.js';

const BEFORE = Array.from({ length: 20 }, (_, i) => `第${i + 1}句。`);
let fake: FakeIacCode;
let gateway: RunningGateway;
beforeAll(async () => {
  // Model chunks 10 ms apart, as an LLM's tokens come.
  fake = await startFakeIacCode({ frameDelayMs: 10, script: { before: BEFORE, after: ['完成。'], artifact: { filename: 'main.tf' } } });
  gateway = await startFacadeGateway({ upstream: { url: fake.url } });
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});

it('the rest shown after a hang-up starts at the first chunk the user did not read', async () => {
  const read = await streamHungUpAt(gateway.url, '请生成 VPC、ECS 和 RDS 的 Terraform 模板', '第5句。');
  expect(read.words).toBe(BEFORE.slice(0, 5).join(''));
  // The user takes a moment to type; the gateway lets go of the upstream turn meanwhile.
  await fake.rpcRequests('SendStreamingMessage').at(-1)!.closed;
  const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '继续', contextId: read.contextId }) });
  const rest = sentText(next.body.result).split('\n\n').slice(1).join('\n\n');
  // Over both turns the user reads the agent's reply, every sentence once.
  expect(rest.slice(0, 8)).toBe('第6句。第7句。');
});
