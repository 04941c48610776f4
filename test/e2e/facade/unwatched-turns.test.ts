/**
 * A turn the facade stopped watching (Bailian hung up mid-stream, a message/send ran out of time) goes on at
 * iac-code and ends there waiting for input, which the gateway's registry never saw. The user's next message,
 * by contextId alone, must still continue that task: a second task beside it would find the conversation's
 * session busy at iac-code, and a permission answer would be sent as plain words.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

describe('a follow-up after a turn the facade stopped watching', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ frameDelayMs: 40 });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const upstreamState = (taskId: string): unknown => (fake.tasks.get(taskId)?.status as { state?: string } | undefined)?.state;
  const sentTaskIds = (): unknown[] =>
    fake.rpcRequests('SendStreamingMessage').map((request) => ((request.body as any).params.message as { taskId?: string }).taskId);

  it('after the caller hung up mid-stream: the next message continues the task iac-code left waiting', async () => {
    const before = sentTaskIds().length;
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'make a vpc', contextId: 'ctx-hung-up' }),
    });
    const head = (await stream.next())?.json.result;
    stream.abort();
    await waitUntil(async () => upstreamState(head.id) === 'TASK_STATE_INPUT_REQUIRED');
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'and a vSwitch', contextId: 'ctx-hung-up' }) });
    expect(next.body.error).toBeUndefined();
    expect(next.body.result).toMatchObject({ id: head.id, contextId: 'ctx-hung-up' });
    expect(sentText(next.body.result)).toContain('Hello world.');
    expect(sentTaskIds().slice(before)).toEqual([undefined, head.id]);
  });

  it('after a message/send that ran out of time: the same', async () => {
    // A bound far shorter than the turn; this gateway shares the agent, not the registry, with the other.
    const hurried = await startFacadeGateway({ upstream: { url: fake.url, 'request-timeout-ms': 200 } });
    onTestFinished(() => hurried.close());
    const before = sentTaskIds().length;
    const first = await rpc(hurried.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId: 'ctx-timed-out' }) });
    expect(first.body.result.status.state).toBe('failed');
    const taskId = first.body.result.id;
    await waitUntil(async () => upstreamState(taskId) === 'TASK_STATE_INPUT_REQUIRED');
    const next = await rpc(hurried.url, 'message/send', { message: userMessage({ text: 'and a vSwitch', contextId: 'ctx-timed-out' }) });
    // This turn runs out of time as well (the bound is short here); what matters is where it went.
    expect(next.body.error).toBeUndefined();
    expect(next.body.result.id).toBe(taskId);
    expect(sentTaskIds().slice(before)).toEqual([undefined, taskId]);
  });
});
