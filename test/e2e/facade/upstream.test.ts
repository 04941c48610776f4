/**
 * The facade in front of the fake iac-code server (test/support/fake-iac-code.ts): what reaches the
 * upstream, and what a 0.2.5 caller sees when the upstream fails or the caller hangs up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import {
  expectNoLeak,
  joinedArtifact,
  openStream,
  results,
  rpc,
  sentText,
  startFacadeGateway,
  streamedText,
  userMessage,
} from '../../support/facade.js';

/** The captured turn as a Bailian user reads it: every word once, the tool call's file as a line (no artifact-dir here). */
const TURN_TEXT = 'Hello world.\nmain.tf (text/plain, 14 bytes)\nDone.';

describe('facade → fake iac-code', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });

  it('a captured iac-code turn: ONE reply artifact with every word once, completed final; the follow-up reuses the task', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'make a vpc' }) });
    const events = results(await stream.rest());
    expect(events[0]).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    const replyId = events[1].artifact.artifactId;
    expect(events.filter((event) => event.kind === 'artifact-update').every((event) => event.artifact.artifactId === replyId)).toBe(true);
    expect(joinedArtifact(events, replyId)).toBe(TURN_TEXT);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    // upstream-metadata: drop (default): no tool/usage events, no iac_code metadata.
    expect(JSON.stringify(events)).not.toContain('iac_code');

    // message/send reads the same turn through the stream: the same words.
    const followUp = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'and a subnet', contextId: events[0].contextId }) });
    expect(followUp.body.result).toMatchObject({ id: events[0].id, contextId: events[0].contextId, status: { state: 'completed' } });
    expect(sentText(followUp.body.result)).toBe(TURN_TEXT);
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
    expect(sent.params.message).toMatchObject({ taskId: events[0].id, contextId: events[0].contextId, role: 'ROLE_USER' });
  });

  it("forwards Bailian's extension metadata intact under metadata.bailian", async () => {
    const extension = {
      user: { userId: 'u-1' },
      device: { clientIp: '10.1.2.3', deviceId: 'dev-9' },
      location: { city: '杭州', longitude: '120.15', latitude: '30.28' },
      userDefinedParams: { agentParam: 'v' },
      commandResults: [{ commandRequestId: 'c-1', status: 'ok' }],
      // A documentation address: refused before any connection, so the image stays as Bailian sent it.
      images: [{ type: 'url', value: 'https://192.0.2.1/x.png' }],
      chatId: '3eca6a13-fcfd-48b0-b1b7-34bfe735abcd',
      intentInfos: [{ intent: 'ai-calculate', slots: [{ name: 'num1', value: '一', normValue: '1' }] }],
    };
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'with metadata', metadata: { ...extension, trace: 't-1' } }),
    });
    await stream.rest();
    const forwarded = (fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message.metadata;
    expect(forwarded).toStrictEqual({ trace: 't-1', bailian: extension });

    await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'unary too', metadata: { chatId: 'c-2' } }) });
    expect((fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message.metadata).toStrictEqual({ bailian: { chatId: 'c-2' } });
  });

  it('upstream killed mid-stream: the rest of the turn is read from the task and shown as if the stream had not broken', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'x [fault:kill-mid-stream after=5]' }),
    });
    const frames = await stream.rest();
    const events = results(frames);
    expect(frames.every((frame) => frame.event === undefined && frame.json.error === undefined)).toBe(true);
    expect(events[0].kind).toBe('task');
    expect(streamedText(events)).toBe(TURN_TEXT);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(fake.rpcRequests('GetTask').at(-1)?.body).toMatchObject({ params: { id: events[0].id } });
  });

  it('upstream killed mid-stream and the task cannot be read either: a failed, final status-update, then the stream closes', async () => {
    fake.injectFault('http-500', { method: 'SubscribeToTask' });
    fake.injectFault('http-500', { times: 3, method: 'GetTask' });
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'x [fault:kill-mid-stream after=5]' }),
    });
    const frames = await stream.rest();
    const events = results(frames);
    expect(frames.every((frame) => frame.event === undefined && frame.json.error === undefined)).toBe(true);
    const last = events.at(-1);
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    // Bailian reads artifacts only: the reason closes the reply.
    expect(streamedText(events)).toBe('Hello world.\nUpstream agent is unavailable');
    // The chunks streamed before the failure were closed.
    const chunks = events.filter((event) => event.kind === 'artifact-update');
    expect(chunks.at(-1).lastChunk).toBe(true);
  });

  it('an upstream that ends the stream mid-turn: the rest is read from the task; failed, final when it cannot be (never a final "working")', async () => {
    const recovered = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'v [fault:end-mid-stream after=4]' }),
    });
    expect(streamedText(results(await recovered.rest()))).toBe(TURN_TEXT);
    fake.injectFault('http-500', { method: 'SubscribeToTask' });
    fake.injectFault('http-500', { times: 3, method: 'GetTask' });
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'v [fault:end-mid-stream after=4]' }),
    });
    const events = results(await stream.rest());
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    expect(streamedText(events)).toMatch(/before the turn finished/);
  });

  it('a user writing Chinese reads why the gateway ended the turn in Chinese, over message/stream and message/send', async () => {
    fake.injectFault('http-500', { method: 'SubscribeToTask' });
    fake.injectFault('http-500', { times: 3, method: 'GetTask' });
    const killed = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: '帮我建一个专有网络 [fault:kill-mid-stream after=5]' }),
    });
    const events = results(await killed.rest());
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    expect(streamedText(events)).toBe('Hello world.\n暂时无法连接上游智能体');
    fake.injectFault('http-500', { method: 'SubscribeToTask' });
    fake.injectFault('http-500', { times: 3, method: 'GetTask' });
    const ended = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '再建一个交换机 [fault:end-mid-stream after=4]' }) });
    expect(ended.body.result.status.state).toBe('failed');
    expect(sentText(ended.body.result)).toBe('Hello \n上游智能体在本轮对话结束前中断了输出');
  });

  it('an upstream error event with a traceback, paths and a token: failed final, nothing of it leaks', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'y [fault:error-event after=4]' }) });
    const frames = await stream.rest();
    const events = results(frames);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    expect(streamedText(events)).toMatch(/\nThe agent ran into an error and could not finish: RuntimeError/);
    expectNoLeak(frames.map((frame) => frame.data).join('\n'));
  });

  it("iac-code's -32603 after its first words, to a user writing Chinese: its words, then in Chinese that it failed and why", async () => {
    for (const method of ['message/stream', 'message/send'] as const) {
      const message = userMessage({ text: '帮我建一个专有网络 [fault:error-event after=4]' });
      const text =
        method === 'message/send'
          ? sentText((await rpc(gateway.url, method, { message })).body.result)
          : streamedText(results(await (await openStream(`${gateway.url}/stream`, method, { message })).rest()));
      expect(text).toBe('Hello \n智能体出错，未能完成本次请求：RuntimeError: failed to read [path] with Bearer [redacted]');
    }
  });

  it('an upstream error before the first event: one 0.2.5 error frame in the stream, sanitized', async () => {
    fake.injectFault('internal-error');
    const answer = await rpc(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'z' }) });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    expect(answer.body.id).toBe('request-1');
    expect(answer.body.error.code).toBe(-32603);
    expect(answer.body.error.data).toBeUndefined();
    expectNoLeak(answer.text);
  });

  it('an upstream stream that opens with an error: the same one frame, unnamed, as for an error before the stream', async () => {
    const answer = await rpc(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'z [fault:error-event after=0]' }) });
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    expect(answer.body).toMatchObject({ id: 'request-1', error: { code: -32603, message: expect.stringMatching(/^RuntimeError/) } });
    // No `event: error` a client listening to default events would miss, no `: accepted` before it.
    expect(answer.text).toBe(`data: ${JSON.stringify(answer.body)}\n\n`);
    expectNoLeak(answer.text);
  });

  it('a client that hangs up aborts the upstream call and frees the context', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'w [fault:hang-mid-stream after=3]' }),
    });
    const head = (await stream.next())?.json.result;
    expect(head.kind).toBe('task');
    const upstreamCall = fake.rpcRequests('SendStreamingMessage').at(-1);
    stream.abort();
    expect(await upstreamCall?.closed).toBe('client-closed');
    expect(upstreamCall?.closedByClient).toBe(true);
    // The lane was released: the next message on the context is not "busy".
    const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'after', contextId: head.contextId }) });
    expect(next.body.error).toBeUndefined();
    expect(next.body.result.contextId).toBe(head.contextId);
  });
});

describe("facade → fake iac-code with upstream-metadata: 'pass'", () => {
  it('tool/usage details arrive as working status-updates with final: false; the text is unchanged', async () => {
    const fake = await startFakeIacCode();
    const gateway = await startFacadeGateway({ upstream: { url: fake.url }, bailian: { 'upstream-metadata': 'pass' } });
    try {
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'tools' }) });
      const events = results(await stream.rest());
      const passed = events.filter((event) => event.kind === 'status-update' && event.metadata?.iac_code);
      expect(passed.length).toBeGreaterThan(0);
      expect(passed.slice(0, -1).every((event) => event.final === false && ['submitted', 'working'].includes(event.status.state))).toBe(true);
      expect(passed.some((event) => event.metadata.iac_code.tool)).toBe(true);
      const textId = events.find((event) => event.kind === 'artifact-update' && event.append).artifact.artifactId;
      expect(joinedArtifact(events, textId)).toBe(TURN_TEXT);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true });
    } finally {
      await gateway.close();
      await fake.close();
    }
  });
});
