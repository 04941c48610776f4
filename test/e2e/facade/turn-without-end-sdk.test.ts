/**
 * A REAL a2a-js 1.x agent whose executor says something (a working status with words, an artifact chunk) and
 * returns without publishing the turn's end (no completed, input-required or failed status): a bug of the agent,
 * and a common one. Its SDK then ends the stream at once, the task left working for good: every SubscribeToTask
 * answers with that task and ends at once (no run of it goes on), GetTask says working forever. The facade read
 * the stream's end as a break and followed the task again until `upstream.request-timeout-ms` (600 s by default):
 * the Bailian user waited all of it before reading that the turn broke off. Now they read, in seconds, what the
 * agent said and, in their language, that its turn ended before it finished, over message/send and message/stream.
 * And the conversation goes on: the gateway kept it busy while the agent said its task works, so every later message
 * was refused as a turn in progress ("智能体仍在处理你的上一条消息"), for good; the agent, asked, runs nothing for it.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { textPart, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from './script-player-agent.js';

/** The recovery's bound: the answer must come far below it. */
const REQUEST_TIMEOUT_MS = 60_000;
/** Far below that bound, far above the few seconds the answer takes even on a loaded host. */
const PROMPTLY_MS = 30_000;
const H = { 'X-API-KEY': API_KEY };

const SCRIPTS = {
  'deploy the website': { steps: [{ status: TaskState.TASK_STATE_WORKING, said: 'Deploying the website now.' }] },
  部署一个网站: {
    steps: [
      { status: TaskState.TASK_STATE_WORKING, said: '正在部署网站。' },
      { artifact: 'plan', parts: [textPart('第一步：创建专有网络。')], append: false, last: false },
    ],
  },
  再试一次: { steps: [{ status: TaskState.TASK_STATE_COMPLETED, said: '网站已部署。' }] },
};

let agent: RunningTestAgent;
let gateway: RunningGateway;
beforeAll(async () => {
  agent = await startScriptPlayer(SCRIPTS);
  gateway = await startFacadeGateway({ upstream: { url: agent.url, 'request-timeout-ms': REQUEST_TIMEOUT_MS }, bailian: { 'api-key': API_KEY } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const CASES = [
  { prompt: 'deploy the website', reads: 'Deploying the website now.\nThe upstream agent ended the stream before the turn finished' },
  { prompt: '部署一个网站', reads: '正在部署网站。\n第一步：创建专有网络。\n上游智能体在本轮对话结束前中断了输出' },
];

describe('an a2a-js 1.x agent whose turn returns without its end', () => {
  it.concurrent.for(CASES)(
    'message/stream ($prompt): what the agent said, then that its turn ended early, in seconds',
    { timeout: 90_000 },
    async ({ prompt, reads }, { expect }) => {
      const started = Date.now();
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: prompt }) }, { headers: H });
      const events = results(await stream.rest());
      expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
      expect(streamedText(events)).toBe(reads);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    },
  );

  it.concurrent.for(CASES)('message/send ($prompt): the same, in seconds', { timeout: 90_000 }, async ({ prompt, reads }, { expect }) => {
    const started = Date.now();
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: prompt, contextId: randomUUID() }) }, { headers: H });
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(answer.body.result.status.state).toBe('failed');
    expect(sentText(answer.body.result)).toBe(reads);
  });
});

describe('the conversation after such a turn', () => {
  it.concurrent.for(['message/send', 'message/stream'] as const)(
    'its next message (%s) is answered, not refused as a turn in progress',
    { timeout: 90_000 },
    async (method, { expect }) => {
      const contextId = randomUUID();
      const broken = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '部署一个网站', contextId }) }, { headers: H });
      expect(broken.body.result.status.state).toBe('failed');
      if (method === 'message/send') {
        const next = await rpc(gateway.url, method, { message: userMessage({ text: '再试一次', contextId }) }, { headers: H });
        expect(next.body.error).toBeUndefined();
        expect(sentText(next.body.result)).toBe('网站已部署。');
      } else {
        const stream = await openStream(`${gateway.url}/stream`, method, { message: userMessage({ text: '再试一次', contextId }) }, { headers: H });
        const frames = await stream.rest();
        expect(frames.map((frame) => frame.json.error).filter(Boolean)).toEqual([]);
        expect(streamedText(results(frames))).toBe('网站已部署。');
      }
    },
  );
});
