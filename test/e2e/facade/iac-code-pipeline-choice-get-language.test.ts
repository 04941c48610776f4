/**
 * A Chinese Bailian user picks iac-code's first candidate by its number ("1"). The facade sends iac-code that
 * candidate's name ("方案A：ECS+RDS", pipeline-answers.ts), which is iac-code's words, not the user's: mostly Latin.
 * iac-code then asks to confirm the deployment, and the facade lists it in Chinese. tasks/get of that turn must read
 * the same Chinese words (step, template, how to answer), not switch to English because of the candidate's name.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { collect, sdkParams, startFacadeGateway } from '../../support/facade.js';

const textOf = (artifacts: any[] = []): string =>
  artifacts
    .flatMap((artifact) => artifact.parts)
    .map((part: any) => (part.kind === 'text' ? part.text : ''))
    .join('');

describe('iac-code pipeline: tasks/get after a Chinese user picked a candidate by its number', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      runMode: 'pipeline',
      confirmsDeployment: true,
      script: { before: [], after: [], artifact: { filename: 'template.yaml' } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const get = async (id: string): Promise<string> => textOf(((await client.getTask({ id })) as any).result.artifacts);

  it('message/send: tasks/get reads the confirmation in Chinese, as the reply did', async () => {
    const send = async (text: string, contextId?: string): Promise<any> => ((await client.sendMessage(sdkParams(text, { contextId }))) as any).result;
    const asked = await send('帮我部署一个网站');
    await send('小型', asked.contextId);
    const confirming = await send('1', asked.contextId);
    const shown = textOf(confirming.artifacts);
    expect(shown).toContain('请回复编号，或直接用文字说明。');
    expect(await get(confirming.id)).toBe(shown);
  });

  it('message/stream: tasks/get reads the confirmation in Chinese, as the stream did', async () => {
    const stream = async (text: string, contextId?: string): Promise<{ id: string; contextId: string; text: string }> => {
      const events = await collect(client.sendMessageStream(sdkParams(text, { contextId })));
      const text_ = textOf(events.filter((event) => event.kind === 'artifact-update').map((event) => event.artifact));
      return { id: events[0].id ?? events[0].taskId, contextId: events[0].contextId, text: text_ };
    };
    const asked = await stream('帮我部署一个网站');
    await stream('小型', asked.contextId);
    const confirming = await stream('1', asked.contextId);
    expect(confirming.text).toContain('模板：template.yaml');
    expect(await get(confirming.id)).toBe(confirming.text);
  });
});
