/**
 * A Bailian user in front of a real a2a-js 0.2.5 agent: under the bailian profile the facade does not
 * relay the agent's answers as they are (Bailian would show none of its status messages, and no file or
 * data part), it builds the reply from what the agent said, as for a 1.0 agent. Read through
 * message/send and message/stream, which must agree.
 */
import type { RunningGateway } from '../../../src/app.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, facadeTurnReads, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { startScriptedV025Agent, type ScriptedV025Agent, type ScriptStep } from './v025-scripted-agent.js';

const ANSWER = '100 美元约等于 **725.3 元人民币**。\n\n| 货币 | 汇率 |\n|---|---|\n| USD/CNY | 7.253 |';
const tokens = (text: string, size = 4): string[] =>
  Array.from({ length: Math.ceil([...text].length / size) }, (_, i) => [...text].slice(i * size, (i + 1) * size).join(''));

const SCRIPTS: Record<string, ScriptStep[]> = {
  progress: [
    { say: 'Looking up the exchange rates...' },
    { artifact: 'conversion', parts: [{ kind: 'text', text: ANSWER }] },
    { say: '', state: 'completed' },
  ],
  'status tokens': [...tokens(ANSWER).map((say) => ({ say, messageId: 'answer' })), { say: '', state: 'completed' }],
  question: [{ say: '正在查询……' }, { say: '请问您要兑换哪种货币？', state: 'input-required' }],
  'reply:': [{ say: '好的，按美元计算。' }, { say: ANSWER, state: 'completed' }],
  failure: [{ say: '正在查询汇率' }, { say: 'Rates service answered 503 Service Unavailable', state: 'failed' }],
  files: [
    {
      artifact: 'rates',
      parts: [
        { kind: 'file', file: { name: 'rates.csv', mimeType: 'text/csv', bytes: Buffer.from('currency,rate\nUSD,7.253\n').toString('base64') } },
        { kind: 'data', data: { usd: 7.253 } },
        { kind: 'file', file: { name: 'chart.png', mimeType: 'image/png', uri: 'https://example.com/charts/rate chart.png' } },
      ],
    },
    { say: '汇率表已附上。', state: 'completed' },
  ],
};

let agent: ScriptedV025Agent;
let gateway: RunningGateway;
const headers = { 'X-API-KEY': API_KEY };
const reads = facadeTurnReads(() => gateway.url, headers);

beforeAll(async () => {
  agent = await startScriptedV025Agent(SCRIPTS);
  gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

describe.each(['stream', 'send'] as const)('a Bailian user reads the 0.2.5 agent over message/%s', (method) => {
  it('its progress, then its answer artifact', async () => {
    expect(await reads[method]('progress')).toStrictEqual({ text: `Looking up the exchange rates...\n${ANSWER}`, state: 'completed' });
  });

  it('an answer it streamed as working status messages, token by token', async () => {
    expect(await reads[method]('status tokens')).toStrictEqual({ text: ANSWER, state: 'completed' });
  });

  it('its question, at the end of a turn Bailian is told waits on its user', async () => {
    expect(await reads[method]('question')).toStrictEqual({ text: '正在查询……\n请问您要兑换哪种货币？', state: 'input-required' });
  });

  it('why it failed', async () => {
    expect(await reads[method]('failure')).toStrictEqual({ text: '正在查询汇率\nRates service answered 503 Service Unavailable', state: 'failed' });
  });

  it('its file, data and link as text', async () => {
    const { text, state } = await reads[method]('files');
    expect(state).toBe('completed');
    expect(text).toBe(
      'rates.csv\n```\ncurrency,rate\nUSD,7.253\n```\n```json\n{\n  "usd": 7.253\n}\n```\nchart.png: https://example.com/charts/rate%20chart.png\n汇率表已附上。',
    );
  });
});

it("the user's answer to its question goes to the task that asked it", async () => {
  const asked = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'question' }) }, { headers });
  const { id: taskId, contextId } = asked.body.result;
  const answered = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'reply: 美元', contextId }) }, { headers });
  expect(sentText(answered.body.result)).toBe(`好的，按美元计算。\n${ANSWER}`);
  expect(answered.body.result.contextId).toBe(contextId);
  expect(agent.heard.get(taskId)).toStrictEqual(['question', 'reply: 美元']);
});

it("the facade's card is the agent's, at the gateway's url, with Bailian's key", async () => {
  const card: any = await (await fetch(`${gateway.url}/.well-known/agent.json`)).json();
  expect(card).toMatchObject({ name: 'exchange-rates', url: gateway.url, protocolVersion: '0.2.5', security: [{ apiKey: [] }] });
});
