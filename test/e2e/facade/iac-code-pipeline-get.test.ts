/**
 * tasks/get of a finished iac-code pipeline turn: the task iac-code keeps holds only the envelopes of the turn's
 * latest update, so the words before it are read from iac-code's journal (its pipeline state route), from where
 * the turn began, as a broken stream's recovery reads them. What tasks/get shows is then what message/send showed:
 * every step's words, and the turn's own files, not those of the task's earlier turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';

describe('iac-code pipeline mode: tasks/get of each finished turn', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ runMode: 'pipeline', script: { before: [], after: [], artifact: { filename: 'template.yaml' } } });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const send = async (text: string, contextId?: string) =>
    (await rpc(gateway.url, 'message/send', { message: userMessage(contextId ? { text, contextId } : { text }) })).body.result;
  const get = async (id: string) => (await rpc(gateway.url, 'tasks/get', { id })).body.result;

  it('shows the reply message/send showed, turn after turn', async () => {
    const asked = await send('帮我部署一个网站');
    expect(sentText(asked)).toContain('步骤 1/5：意图解析');
    expect(sentText(await get(asked.id))).toBe(sentText(asked));

    const planned = await send('1', asked.contextId);
    expect(sentText(planned)).toContain('template.yaml');
    expect(sentText(await get(planned.id))).toBe(sentText(planned));

    const deployed = await send('2', asked.contextId);
    expect(sentText(deployed)).toContain('Stack created.');
    const got = await get(deployed.id);
    expect(got.status.state).toBe('completed');
    // The deployment's words, without the template the planning turn wrote.
    expect(sentText(got)).toBe(sentText(deployed));
  });

  it("without the journal, shows the latest update's words, with no line about a broken stream", async () => {
    const asked = await send('帮我部署一个网站');
    fake.failPipelineState('fails');
    try {
      const got = sentText(await get(asked.id));
      expect(got).toContain('请回复编号');
      expect(got).not.toContain('步骤 1/5');
      expect(got).not.toMatch(/missing|缺少/);
    } finally {
      fake.failPipelineState(undefined);
    }
  });
});
