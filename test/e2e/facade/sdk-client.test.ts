/**
 * The official A2A 0.2.5 client (a2a-js 0.2.5 `A2AClient`) against the facade: card discovery from
 * the base URL, send, stream, get, cancel, resubscribe. Upstreams: (a) the embedded demo agent under
 * the bailian profile, (b) a real a2a-js 1.x server under the plain a2a-0.2.5 profile.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { demoReply } from '../../../src/demo-agent/index.js';
import { sdkReply, startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { collect, joinedArtifact, sdkParams, startFacadeGateway } from '../../support/facade.js';

type Events = any[];

/** The facade's text artifact: the one whose chunks are appended (upstream artifacts keep their own ids). */
const textArtifactId = (events: Events): string =>
  events.find((event) => event.kind === 'artifact-update' && event.append === true && !String(event.artifact.artifactId).endsWith('-reply'))?.artifact
    .artifactId;

describe('A2AClient 0.2.5 → facade → embedded demo agent (bailian profile)', () => {
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    gateway = await startFacadeGateway();
    client = new A2AClient(gateway.url);
  });
  afterAll(() => gateway.close());

  it('discovers the 0.2.5 card from the base URL', async () => {
    const card: any = await client.getAgentCard();
    expect(card.protocolVersion).toBe('0.2.5');
    expect(card.url).toBe(gateway.url);
    expect(card.capabilities.streaming).toBe(true);
  });

  it('sendMessage: a completed task with the reply; the same contextId continues the conversation', async () => {
    const first: any = await client.sendMessage(sdkParams('one'));
    expect(first.error).toBeUndefined();
    expect(first.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(first.result.artifacts[0].parts[0].text).toBe(demoReply('one', 1).full);
    const second: any = await client.sendMessage(sdkParams('two', { contextId: first.result.contextId }));
    expect(second.result.contextId).toBe(first.result.contextId);
    expect(second.result.artifacts[0].parts[0].text).toBe(demoReply('two', 2).full);

    const got: any = await client.getTask({ id: second.result.id, historyLength: 1 });
    expect(got.result).toMatchObject({ kind: 'task', id: second.result.id, status: { state: 'completed' } });
    expect(got.result.history.length).toBeLessThanOrEqual(1);
  });

  it('sendMessageStream: task, appended chunks, final completed status', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('stream me')));
    expect(events[0]).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(joinedArtifact(events, textArtifactId(events))).toBe(demoReply('stream me', 1).full);
  });

  it('resubscribeTask joins a running turn (Task snapshot first) and ends with the turn', async () => {
    const original = client.sendMessageStream(sdkParams('slow: keep going'));
    const head: any = (await original.next()).value;
    const resubscribed = await collect(client.resubscribeTask({ id: head.id }));
    expect(resubscribed[0]).toMatchObject({ kind: 'task', id: head.id });
    expect(resubscribed.at(-1)).toMatchObject({ kind: 'status-update', taskId: head.id, final: true, status: { state: 'completed' } });
    const rest = await collect(original);
    expect(rest.at(-1)).toMatchObject({ kind: 'status-update', taskId: head.id, final: true, status: { state: 'completed' } });
    expect(joinedArtifact(resubscribed, textArtifactId(resubscribed)).endsWith('.'.repeat(3))).toBe(true);
  });

  it('cancelTask stops a running turn; the bailian profile shows canceled as failed', async () => {
    const stream = client.sendMessageStream(sdkParams('slow: cancel me'));
    const head: any = (await stream.next()).value;
    const canceled: any = await client.cancelTask({ id: head.id });
    expect(canceled.error).toBeUndefined();
    expect(canceled.result).toMatchObject({ kind: 'task', id: head.id, status: { state: 'failed' } });
    const rest = await collect(stream);
    expect(rest.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
  });

  it('errors come back as 0.2.5 JSON-RPC errors: code and message, no 1.0 ErrorInfo list', async () => {
    const answer: any = await client.getTask({ id: 'no-such-task' });
    expect(answer.error.code).toBe(-32001);
    expect(typeof answer.error.message).toBe('string');
    expect(answer.error.data).toBeUndefined();
  });
});

describe('A2AClient 0.2.5 → facade → a2a-js 1.x server (a2a-0.2.5 profile)', () => {
  let agent: RunningSdkV1Agent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startSdkV1Agent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { profile: 'a2a-0.2.5' } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  it("sendMessage: the reply once, in the upstream's own artifact (the final status only repeats it); the context continues with a new task", async () => {
    const first: any = await client.sendMessage(sdkParams('hello'));
    expect(first.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(first.result.artifacts).toHaveLength(1);
    expect(first.result.artifacts[0].parts.map((part: any) => part.text)).toEqual([sdkReply('hello', 1).full]);
    expect(first.result.artifacts[0].artifactId).toBe(`${first.result.id}-reply`);
    expect(first.result.status.message).toBeUndefined();
    const second: any = await client.sendMessage(sdkParams('again', { contextId: first.result.contextId }));
    expect(second.result.id).not.toBe(first.result.id);
    expect(second.result.artifacts[0].parts[0].text).toBe(sdkReply('again', 2).full);
    expect(second.result.artifacts).toHaveLength(1);
  });

  it('sendMessageStream: the upstream artifact chunks carry the reply, the final status does not repeat it', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('stream this please')));
    expect(events[0]).toMatchObject({ kind: 'task' });
    const taskId = events[0].id;
    expect(joinedArtifact(events, `${taskId}-reply`)).toBe(sdkReply('stream this please', 1).full);
    // The reply once: no second (facade) text artifact, and the final status carries no message.
    expect(events.filter((event) => event.kind === 'artifact-update').every((event) => event.artifact.artifactId === `${taskId}-reply`)).toBe(true);
    expect(textArtifactId(events)).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(events.at(-1).status.message).toBeUndefined();
    const got: any = await client.getTask({ id: taskId });
    expect(got.result.status.state).toBe('completed');
  });

  it('cancelTask on a finished task is the upstream error in 0.2.5 form', async () => {
    const sent: any = await client.sendMessage(sdkParams('done'));
    const answer: any = await client.cancelTask({ id: sent.result.id });
    expect(answer.error.code).toBe(-32002);
    expect(answer.error.data).toBeUndefined();
  });
});
