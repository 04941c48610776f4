/**
 * The gateway asks iac-code to write in the turn's language by putting `iac_code.preferredLanguage` on the
 * user's message (upstream/iac-code/preferred-language.ts); iac-code keeps the message so. A Bailian user who
 * sent no metadata reads none on their message in the task's history, from tasks/get as from tasks/cancel;
 * what they did send stays.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, rpc, startFacadeGateway, userMessage } from '../../support/facade.js';

describe("the user's message in a task's history, without the language the gateway asked iac-code for", () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  afterEach(async () => {
    await gateway?.close();
    await fake?.close();
  });

  async function start(options: Parameters<typeof startFakeIacCode>[0] = {}): Promise<void> {
    fake = await startFakeIacCode(options);
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  }
  const userMessages = (task: any): any[] => task.history.filter((message: any) => message.role === 'user');
  const sentMetadata = (): unknown => (fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message.metadata;

  it('tasks/get: a message sent without metadata reads without any', async () => {
    await start();
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '帮我建一个VPC' }) });
    // iac-code was asked to write Chinese, on the message it keeps.
    expect(sentMetadata()).toEqual({ iac_code: { preferredLanguage: 'zh' } });
    const got = await rpc(gateway.url, 'tasks/get', { id: sent.body.result.id });
    const [user] = userMessages(got.body.result);
    expect(user.parts).toEqual([{ kind: 'text', text: '帮我建一个VPC' }]);
    expect(user).not.toHaveProperty('metadata');
  });

  it("the user's own metadata stays, and a language iac-code was asked for that is not one of the facade's", async () => {
    await start();
    const metadata = { traceId: 't-1', iac_code: { preferredLanguage: 'fr' } };
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '帮我建一个VPC', metadata }) });
    const got = await rpc(gateway.url, 'tasks/get', { id: sent.body.result.id });
    expect(userMessages(got.body.result)[0].metadata).toEqual(metadata);

    const own = { traceId: 't-2' };
    const second = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Deploy a website for me', metadata: own }) });
    expect(sentMetadata()).toEqual({ traceId: 't-2', iac_code: { preferredLanguage: 'en' } });
    const read = await rpc(gateway.url, 'tasks/get', { id: second.body.result.id });
    expect(userMessages(read.body.result)[0].metadata).toEqual(own);
  });

  it('tasks/cancel of a running turn: the same', async () => {
    await start({ frameDelayMs: 150 });
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: '帮我建一个VPC' }) });
    const taskId = (await stream.next())?.json.result.id;
    const canceled = await rpc(gateway.url, 'tasks/cancel', { id: taskId });
    await stream.rest();
    const [user] = userMessages(canceled.body.result);
    expect(user.parts).toEqual([{ kind: 'text', text: '帮我建一个VPC' }]);
    expect(user).not.toHaveProperty('metadata');
  });
});
