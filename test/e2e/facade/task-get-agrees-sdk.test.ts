/**
 * tasks/get answers a turn's reply as message/send shows it (docs/facade-reply.md, "tasks/get"), read with the
 * official 0.2.5 client in front of a real a2a-js 1.x agent: the same artifacts, by their ids and their parts, as
 * message/stream and message/send showed, so a client that merges what tasks/get says into what it was shown, by
 * artifactId, shows the reply once and whole. A follow-up turn in the same task has a reply artifact of its own.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { ASK_ARTIFACT, FILES_DONE, bookedReply, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { collect, sdkParams, startFacadeGateway } from '../../support/facade.js';

const ids = (artifacts: any[] | undefined): string[] => (artifacts ?? []).map((artifact) => artifact.artifactId).sort();
const streamedIds = (events: any[]): string[] =>
  [...new Set(events.filter((e) => e.kind === 'artifact-update').map((e) => e.artifact.artifactId as string))].sort();
const idsAndParts = (task: any) => task.artifacts.map((artifact: any) => ({ id: artifact.artifactId, parts: artifact.parts }));

describe.each(['a2a-0.2.5', 'bailian'] as const)('tasks/get agrees with what the turn showed (%s profile)', (profile) => {
  let agent: RunningScriptedAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { profile } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('message/stream: the artifacts streamed are the ones tasks/get shows, by id', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('files')));
    const { result: got }: any = await client.getTask({ id: events[0].id });
    expect(JSON.stringify(got.artifacts)).toContain(FILES_DONE);
    expect(ids(got.artifacts)).toEqual(streamedIds(events));
  });

  it('message/send: the answer and tasks/get of its task show the same artifacts, ids and parts', async () => {
    const { result: sent }: any = await client.sendMessage(sdkParams('files'));
    const { result: got }: any = await client.getTask({ id: sent.id });
    expect(idsAndParts(got)).toEqual(idsAndParts(sent));
  });

  it("a follow-up turn's reply artifact is its own, and tasks/get shows it under the id the turn did", async () => {
    const first = await collect(client.sendMessageStream(sdkParams('book')));
    const { id: taskId, contextId } = first[0];
    const second = await collect(client.sendMessageStream(sdkParams('tomorrow', { taskId, contextId })));
    expect(second[0].id).toBe(taskId);
    const [firstReply] = streamedIds(first);
    const [secondReply] = streamedIds(second);
    expect(secondReply).toBeDefined();
    expect(secondReply).not.toBe(firstReply);
    const { result: got }: any = await client.getTask({ id: taskId });
    expect(JSON.stringify(got.artifacts)).toContain(bookedReply('tomorrow').at(-1)!.trim());
    expect(ids(got.artifacts)).toEqual([secondReply]);
  });

  if (profile === 'a2a-0.2.5')
    it("an agent's artifact streamed in two chunks is one text part in both, not the chunks", async () => {
      const { result: sent }: any = await client.sendMessage(sdkParams('ask'));
      const report = (task: any) => task.artifacts.find((artifact: any) => artifact.artifactId === 'quota-report').parts;
      expect(report(sent)).toEqual([{ kind: 'text', text: ASK_ARTIFACT.join('') }]);
      const { result: got }: any = await client.getTask({ id: sent.id });
      expect(report(got)).toEqual(report(sent));
    });
});
