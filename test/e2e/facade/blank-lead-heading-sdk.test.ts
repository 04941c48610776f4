/**
 * A real a2a-js 1.x agent streams an answer that is only a short heading after a blank lead (`\n\n## 部署方案\n`, one
 * artifact chunk), then asks, saying the heading again before its question. A Bailian user (the official 0.2.5
 * client, X-API-KEY) reads the heading once and the question after it, in message/stream, message/send and tasks/get.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, sdkParams, sentText, streamedText } from '../../support/facade.js';
import { startKeyedFacade, stopKeyedFacade } from '../../support/keyed-fetch.js';
import { textPart, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from './script-player-agent.js';

const HEADING = '## 部署方案\n';
const QUESTION = '要部署到华东1还是华北2？';
const READ = `\n\n${HEADING}${QUESTION}`;

let agent: RunningTestAgent;
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startScriptPlayer({
    部署: {
      steps: [
        { artifact: 'answer', parts: [textPart(`\n\n${HEADING}`)], append: false, last: true },
        { status: TaskState.TASK_STATE_INPUT_REQUIRED, said: `${HEADING}${QUESTION}` },
      ],
    },
  });
  ({ gateway, client } = await startKeyedFacade({ url: agent.url }));
});
afterAll(async () => {
  await stopKeyedFacade(gateway);
  await agent?.close();
});

describe('a short heading streamed after a blank lead, then said again with a question', () => {
  it('message/stream, message/send and tasks/get: the heading once, then the question', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('部署')));
    expect(streamedText(events)).toBe(READ);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });

    const { result: sent }: any = await client.sendMessage(sdkParams('部署'));
    expect(sentText(sent)).toBe(READ);

    for (const id of [events[0].id, sent.id]) {
      const { result: got }: any = await client.getTask({ id });
      expect(sentText(got)).toBe(READ);
    }
  });
});
