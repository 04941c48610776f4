/**
 * tasks/get and tasks/cancel of a conversation the facade keeps the language of: a failure of the gateway's own
 * (the agent out of reach) is told in that language, as message/send tells it (gateway-errors-language.test.ts), read
 * with the official 0.2.5 client. The task named by its caller's own id is told so too.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { sdkParams, startFacadeGateway } from '../../support/facade.js';

describe('tasks/get and tasks/cancel with the agent out of reach', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  let client: A2AClient;
  const tasks: Record<'zh' | 'en', string> = { zh: '', en: '' };
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    client = new A2AClient(gateway.url);
    const zh: any = await client.sendMessage(sdkParams('帮我部署一个网站'));
    const en: any = await client.sendMessage(sdkParams('Deploy a website for me'));
    tasks.zh = zh.result.id;
    tasks.en = en.result.id;
    await fake.close();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it("tasks/get says why in the conversation's language", async () => {
    const zh: any = await client.getTask({ id: tasks.zh });
    expect(zh.error).toMatchObject({ code: -32603, message: '暂时无法连接上游智能体' });
    const en: any = await client.getTask({ id: tasks.en });
    expect(en.error).toMatchObject({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
  });

  it("tasks/cancel says why in the conversation's language", async () => {
    const zh: any = await client.cancelTask({ id: tasks.zh });
    expect(zh.error).toMatchObject({ code: -32603, message: '暂时无法连接上游智能体' });
    const en: any = await client.cancelTask({ id: tasks.en });
    expect(en.error).toMatchObject({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
  });
});
