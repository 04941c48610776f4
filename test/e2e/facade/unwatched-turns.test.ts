/**
 * A turn the facade stopped watching (Bailian hung up mid-stream, a message/send ran out of time) goes on at
 * iac-code and ends there waiting for input, which its user never read. The user's next message in the
 * conversation shows that turn's rest (what iac-code said after the user stopped watching), as after a
 * shutdown's cut (unwatched-turns.ts), and is not sent: it would be taken as the answer to words its writer
 * never read. The message after it continues the task as any follow-up does.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const REST_WORDS = 'Here is the rest of the reply to your previous message';
/** How the reply opens when its user read none of the turn. */
const WHOLE_WORDS = 'Here is the reply to your previous message';
const LEFT_RUNNING_WORDS = 'but it is still working on your request. Send any message in this conversation';
/** Why the reply broke off, as the rest's opening says: Bailian hung up, or the gateway's bound passed (no connection broke). */
const INTERRUPTED = 'whose connection was interrupted';
const TOOK_LONGER = 'the agent took longer than that reply could wait';

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

  it('after the caller hung up mid-stream: the next message shows the turn iac-code went on with, unsent; the one after continues it', async () => {
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
    expect(sentText(next.body.result)).toContain(WHOLE_WORDS);
    expect(sentText(next.body.result)).toContain(INTERRUPTED);
    expect(sentText(next.body.result)).not.toContain(TOOK_LONGER);
    expect(sentText(next.body.result)).toContain('Hello world.');
    expect(sentTaskIds().slice(before)).toEqual([undefined]);
    const after = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'and a vSwitch', contextId: 'ctx-hung-up' }) });
    expect(after.body.result.id).toBe(head.id);
    expect(sentText(after.body.result)).not.toContain(REST_WORDS);
    expect(sentText(after.body.result)).not.toContain(WHOLE_WORDS);
    expect(sentTaskIds().slice(before)).toEqual([undefined, head.id]);
  });

  it('after a message/send that ran out of time: its user reads that the agent goes on, and the next message shows the rest, as no broken connection', async () => {
    // A bound far shorter than the turn; this gateway shares the agent, not the registry, with the other.
    const hurried = await startFacadeGateway({ upstream: { url: fake.url, 'request-timeout-ms': 200 } });
    onTestFinished(() => hurried.close());
    const before = sentTaskIds().length;
    const first = await rpc(hurried.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId: 'ctx-timed-out' }) });
    expect(first.body.result.status.state).toBe('failed');
    expect(sentText(first.body.result)).toContain(LEFT_RUNNING_WORDS);
    expect(sentText(first.body.result)).not.toContain('timed out');
    const taskId = first.body.result.id;
    await waitUntil(async () => upstreamState(taskId) === 'TASK_STATE_INPUT_REQUIRED');
    const next = await rpc(hurried.url, 'message/send', { message: userMessage({ text: 'and a vSwitch', contextId: 'ctx-timed-out' }) });
    expect(next.body.error).toBeUndefined();
    expect(next.body.result).toMatchObject({ id: taskId });
    // The rest starts where the user stopped reading: iac-code's last words, which the first answer did not show.
    expect(sentText(first.body.result)).not.toContain('Done.');
    // Opened as the rest when the bound passed after iac-code's first word (it reached the user), else as the whole.
    const read = sentText(first.body.result).startsWith('Hello');
    expect(sentText(next.body.result)).toContain(read ? REST_WORDS : WHOLE_WORDS);
    expect(sentText(next.body.result)).toContain(TOOK_LONGER);
    expect(sentText(next.body.result)).not.toContain(INTERRUPTED);
    expect(sentText(next.body.result)).toContain(read ? 'world.' : 'Hello world.');
    expect(sentText(next.body.result)).toContain('Done.');
    expect(sentTaskIds().slice(before)).toEqual([undefined]);
  });
});
