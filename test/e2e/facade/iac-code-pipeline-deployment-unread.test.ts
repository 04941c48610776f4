/**
 * A deployment confirmation its user never read is no deployment to confirm: the stream of the turn that asks
 * it is hung up before the question came (Bailian's time-out), iac-code asks it all the same, and the user's next
 * message ("1", meant for whatever they last read) is not sent as the confirmation. It shows the question, as the
 * rest of the turn that broke off, and waits on the answer (`input-required`); the answer after it confirms.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/words.js';
import { DEPLOYMENT_CONFIRMATION } from '../../support/fake-iac-code-pipeline.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, reading, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const CONFIRM = JSON.stringify({ action: 'confirm' });
/** How long the question's frame is held back after the frames before it. */
const QUIET_MS = 1_000;

describe.each(['message/send', 'message/stream'] as const)('a deployment confirmation asked after its user hung up, next message over %s', (mode) => {
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

  async function turn(text: string, contextId: string): Promise<{ said: string; state: string }> {
    const message = userMessage({ text, contextId });
    if (mode === 'message/send') {
      const task = (await rpc(gateway.url, 'message/send', { message })).body.result;
      return { said: sentText(task), state: task.status.state };
    }
    const events = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', { message })).rest());
    return { said: streamedText(events), state: events.at(-1).status.state };
  }

  const sentParts = (): unknown => (fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message.parts;
  const agentAsked = (contextId: string): boolean =>
    JSON.stringify([...fake.tasks.values()].find((task) => task.contextId === contextId) ?? {}).includes('deployment_confirmation');

  it('shows the question first, then takes the answer', async () => {
    const contextId = `deployment-unread-${randomUUID()}`;
    await reading(gateway.url, 'message/send', '帮我部署一个网站', contextId);
    await reading(gateway.url, 'message/send', '1', contextId);
    // The choice's turn, hung up once its user read that the deployment step began: the question comes a while
    // after that (its frame held back), once the gateway saw the hang-up, and is written to no one.
    fake.injectFault({ name: 'quiet', after: 2, ms: QUIET_MS }, { method: 'SendStreamingMessage' });
    const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: '2', contextId }) });
    const read: unknown[] = [];
    while (!streamedText(read).includes('步骤 5/5')) read.push((await opened.next())?.json.result);
    opened.abort();
    await waitUntil(async () => agentAsked(contextId));
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const sends = fake.rpcRequests('SendStreamingMessage').length;

    const shown = await turn('1', contextId);
    expect(fake.rpcRequests('SendStreamingMessage')).toHaveLength(sends);
    const lead = facadeWords('zh').notPassedOn(facadeWords('zh').cutTurnRest);
    expect(shown.said.startsWith(`${lead}\n\n${DEPLOYMENT_CONFIRMATION.prompt}\n`), shown.said).toBe(true);
    expect(shown.state).toBe('input-required');

    const deployed = await turn('1', contextId);
    expect(sentParts()).toEqual([{ text: CONFIRM }]);
    expect(deployed.state).toBe('completed');
  });
});
