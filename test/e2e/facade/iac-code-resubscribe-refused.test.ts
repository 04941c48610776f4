/**
 * iac-code's stream breaks off mid-turn and, when the facade follows the task again, iac-code refuses the
 * gateway's credentials (HTTP 401: its token rotated meanwhile). Asking again would only meet the same
 * refusal: the facade ends the turn at once, with the gateway's words for an agent it cannot use, instead of
 * reading the task over and over.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

describe('facade → iac-code whose stream breaks off and which then refuses the gateway credentials', () => {
  let fake: FakeIacCode;
  let gateway: TestGateway;
  /** Whether iac-code refuses the gateway's token on every call that follows a task (SubscribeToTask, GetTask). */
  let refusing = false;
  beforeAll(async () => {
    // 30 ms a frame: the turn still runs when the facade follows it again.
    const follows = new Set(['SubscribeToTask', 'GetTask']);
    fake = await startFakeIacCode({
      frameDelayMs: 30,
      fault: (request) => (refusing && follows.has(request.rpcMethod ?? '') ? { name: 'http-401' } : undefined),
    });
    gateway = await startTestGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  /**
   * The calls iac-code received while `turn` ran, by method. One resubscription is a GetTask (the gateway asks
   * the task's state first: core/subscribable.ts) and a SubscribeToTask.
   */
  async function callsDuring(turn: () => Promise<void>): Promise<Record<string, number>> {
    const counts = (): Record<string, number> => {
      const byMethod: Record<string, number> = {};
      for (const request of fake.rpcRequests()) byMethod[request.rpcMethod as string] = (byMethod[request.rpcMethod as string] ?? 0) + 1;
      return byMethod;
    };
    const before = counts();
    await turn();
    const after = counts();
    return Object.fromEntries(
      Object.entries(after)
        .map(([method, n]) => [method, n - (before[method] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
  }

  /** The stream cut after `after` frames, every later call of the turn's recovery answered 401 (the agent's token rotated). */
  function breakThenRefuse(after: number): void {
    fake.injectFault({ name: 'kill-mid-stream', after }, { method: 'SendStreamingMessage' });
    refusing = true;
  }
  afterEach(() => {
    refusing = false;
  });

  it('message/send: one subscription, refused, and the Bailian user reads the words for an agent that cannot be used', async () => {
    let answer: Awaited<ReturnType<typeof rpc>> | undefined;
    const calls = await callsDuring(async () => {
      breakThenRefuse(4);
      answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '你好，帮我创建一个VPC' }) });
    });
    expect(calls).toStrictEqual({ SendStreamingMessage: 1, GetTask: 1, SubscribeToTask: 1 });
    // What the Bailian user reads: the answer so far, then the gateway's words, no config key.
    expect(answer?.body.result.status.state).toBe('failed');
    expect(sentText(answer?.body.result)).toBe('Hello \n暂时无法连接上游智能体');
  });

  it('message/stream: the same, in the English of an English question', async () => {
    let text = '';
    const calls = await callsDuring(async () => {
      breakThenRefuse(4);
      const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'Create a VPC' }) });
      text = streamedText(results(await opened.rest()));
    });
    expect(calls).toStrictEqual({ SendStreamingMessage: 1, GetTask: 1, SubscribeToTask: 1 });
    expect(text).toBe(`Hello \n${GATEWAY_FAILURES.upstreamUnavailable}`);
  });

  it('the stream broken by a lost connection alone is still followed to the turn end', async () => {
    fake.injectFault({ name: 'kill-mid-stream', after: 4 }, { method: 'SendStreamingMessage' });
    let answer: Awaited<ReturnType<typeof rpc>> | undefined;
    const calls = await callsDuring(async () => {
      answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Create a VPC' }) });
    });
    expect(calls.SubscribeToTask).toBe(1);
    expect(answer?.body.result.status.state).toBe('completed');
  });
});
