/**
 * What a Bailian user reads when the agent behind the facade sends messages and artifacts without parts
 * (a 1.0 agent, off-spec; the facade goes through the core for it): the agent's answer, not
 * "The upstream agent returned an invalid stream event" (docs/version-mapping.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { V1_EMPTY_PARTS_ANSWER, startEmptyPartsV1Agent, type EmptyPartsV1Agent } from '../upstreams/empty-parts-v1-agent.js';

/** No message or artifact of a 0.2.5 answer has an empty part list. */
const expectNoEmptyParts = (answer: unknown): void => expect(JSON.stringify(answer)).not.toContain('"parts":[]');

describe('facade → a 1.0 agent whose progress messages and artifacts have no parts', () => {
  let agent: EmptyPartsV1Agent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startEmptyPartsV1Agent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('message/stream: the answer that followed, and the turn completed', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'go' }) });
    const events = results(await stream.rest());
    expect(streamedText(events)).toContain(V1_EMPTY_PARTS_ANSWER);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expectNoEmptyParts(events);
  });

  it('message/send: the same answer, the task completed', async () => {
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'go' }) });
    expect(answer.body.error).toBeUndefined();
    expect(answer.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(sentText(answer.body.result)).toContain(V1_EMPTY_PARTS_ANSWER);
    expectNoEmptyParts(answer.body.result);
  });
});
