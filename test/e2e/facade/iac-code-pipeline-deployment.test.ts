/**
 * A Bailian user confirms the deployment iac-code's pipeline asks about (`deployment_confirmation`, as its
 * `selling_solution_first` pipeline asks it; fake-iac-code-pipeline.ts): a question iac-code names only in the
 * envelopes of the update that ends the turn, not in `metadata.iac_code.input`. The turn that asks ends
 * `input-required` over message/send, message/stream and tasks/get alike, so that Bailian routes the user's answer
 * back to this agent; the answer, by the number the facade lists an option under or by the option's name, reaches
 * iac-code as the structured answer it carries out as sent (`{"action":"confirm"}`), and the user reads the
 * deployment, or why it failed. Words that pick no option go to iac-code as said (its model reads them), and so
 * does the option of a change the user has yet to spell out (`调整参数`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import {
  CANDIDATES,
  DEPLOYMENT_CONFIRMATION,
  FAIL_DEPLOYMENT,
  PIPELINE_FAILURE,
  PIPELINE_SAYS,
  TEMPLATE_FILE,
} from '../../support/fake-iac-code-pipeline.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const CONFIRM = JSON.stringify({ action: 'confirm' });

/** The confirmation as a user writing Chinese reads it. */
const confirmation = (chosen: string): string =>
  [
    '步骤 5/5：部署执行',
    DEPLOYMENT_CONFIRMATION.prompt,
    DEPLOYMENT_CONFIRMATION.summary(chosen),
    `模板：${TEMPLATE_FILE}`,
    ...DEPLOYMENT_CONFIRMATION.options.map((option, at) => `${at + 1}. ${option.name}`),
    '请回复编号，或直接用文字说明。',
  ].join('\n');

const asked = (chosen: string): string => confirmation(chosen).split('\n').slice(1).join('\n');

describe.each(['message/send', 'message/stream'] as const)('iac-code asks to confirm a deployment, over %s', (mode) => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ runMode: 'pipeline', confirmsDeployment: true });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  /** One turn as the user reads it, and how it ended. */
  async function turn(text: string, contextId?: string): Promise<{ said: string; state: string; contextId: string; taskId: string }> {
    const message = userMessage({ text, ...(contextId ? { contextId } : {}) });
    if (mode === 'message/send') {
      const task = (await rpc(gateway.url, 'message/send', { message })).body.result;
      return { said: sentText(task), state: task.status.state, contextId: task.contextId, taskId: task.id };
    }
    const events = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', { message })).rest());
    const last = events.at(-1);
    expect(last).toMatchObject({ kind: 'status-update', final: true });
    return { said: streamedText(events), state: last.status.state, contextId: events[0].contextId, taskId: events[0].id };
  }

  const lastSent = (): any => (fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message;

  /** A conversation up to the confirmation of the candidate picked by `pick`. */
  async function upToConfirmation(pick: string) {
    const opened = await turn('帮我部署一个网站');
    await turn('1', opened.contextId);
    const confirming = await turn(pick, opened.contextId);
    return { contextId: opened.contextId, confirming };
  }

  it.each([
    ['its number', '1'],
    ["the option's words", '确认部署'],
  ])('waits on the answer, which confirms by %s; the user reads the deployment', async (_how, answer) => {
    const chosen = CANDIDATES[1]!.name;
    const { contextId, confirming } = await upToConfirmation('2');
    // Bailian is told the turn waits on the user, so that the answer comes back to this agent.
    expect(confirming).toMatchObject({ said: confirmation(chosen), state: 'input-required' });
    const got = (await rpc(gateway.url, 'tasks/get', { id: confirming.taskId })).body.result;
    expect(got.status.state).toBe('input-required');
    expect(sentText(got)).toBe(confirming.said);

    const deployed = await turn(answer, contextId);
    // iac-code carries out a structured answer as sent; its model alone would read "1" or words.
    expect(lastSent()).toMatchObject({ taskId: [...fake.tasks.keys()].at(-1), parts: [{ text: CONFIRM }] });
    expect(deployed).toMatchObject({ said: `${PIPELINE_SAYS.deploying(chosen)}\n${PIPELINE_SAYS.deployed}`, state: 'completed' });
  });

  it('a deployment that fails after the confirmation: the user reads why', async () => {
    const { contextId, confirming } = await upToConfirmation(FAIL_DEPLOYMENT);
    expect(confirming.state).toBe('input-required');
    const failed = await turn('1', contextId);
    expect(lastSent().parts).toEqual([{ text: CONFIRM }]);
    expect(failed).toMatchObject({ said: `${PIPELINE_SAYS.deploying(FAIL_DEPLOYMENT)}\n${PIPELINE_FAILURE}`, state: 'failed' });
  });

  it.each([
    ['words that pick no option', '多少钱？', '多少钱？'],
    ['a number no option has', '4', '4'],
    // A structured `adjust` would say nothing of what to change: iac-code's model is to ask.
    ['the option of a change not yet spelled out', '2', DEPLOYMENT_CONFIRMATION.options[1]!.name],
  ])('%s (%s) reaches iac-code as words; asked again, the turn still waits', async (_what, said, words) => {
    const chosen = CANDIDATES[0]!.name;
    const { contextId } = await upToConfirmation('1');
    const again = await turn(said, contextId);
    expect(lastSent().parts).toEqual([{ text: words }]);
    expect(again).toMatchObject({ said: asked(chosen), state: 'input-required' });
    // The confirmation asked again is answered as the first was.
    const deployed = await turn('确认部署', contextId);
    expect(lastSent().parts).toEqual([{ text: CONFIRM }]);
    expect(deployed.state).toBe('completed');
  });

  it("a cancel while the confirmation waits is iac-code's to take: the task ends, nothing is deployed", async () => {
    const { confirming } = await upToConfirmation('2');
    const sends = fake.rpcRequests('SendStreamingMessage').length;
    const canceled = (await rpc(gateway.url, 'tasks/cancel', { id: confirming.taskId })).body;
    // Shown waiting, the task is not refused as finished (-32002): iac-code cancels a pipeline waiting for input.
    expect(fake.rpcRequests('CancelTask')).toHaveLength(1);
    expect(canceled.result.status.state).toBe('failed');
    expect(sentText(canceled.result)).toBe('Task canceled.');
    const got = (await rpc(gateway.url, 'tasks/get', { id: confirming.taskId })).body.result;
    expect({ state: got.status.state, said: sentText(got) }).toEqual({ state: 'failed', said: 'Task canceled.' });
    expect(fake.rpcRequests('SendStreamingMessage')).toHaveLength(sends);
  });
});
