/**
 * A real a2a-js 1.x agent streams its answer as an artifact whose first chunk is a line break (a model's first
 * token often is), then asks, saying the answer again before its question. A Bailian user (the official 0.2.5
 * client, X-API-KEY) reads the answer once and the question after it, in message/stream, message/send and
 * tasks/get alike, and the turn waits for their answer.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, sdkParams, sentText, streamedText } from '../../support/facade.js';
import { startKeyedFacade, stopKeyedFacade } from '../../support/keyed-fetch.js';
import { textPart, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from './script-player-agent.js';

const ANSWER = ['The stack was created in cn-hangzhou. ', 'It costs about ¥120 a month.'];
const QUESTION = 'Shall I deploy a second one in cn-beijing?';
const READ = `\n${ANSWER.join('')}\n${QUESTION}`;

let agent: RunningTestAgent;
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  const chunks = ['\n', ...ANSWER];
  agent = await startScriptPlayer({
    'deploy the stack': {
      steps: [
        ...chunks.map((text, at) => ({ artifact: 'answer', parts: [textPart(text)], append: at > 0, last: at === chunks.length - 1 })),
        { status: TaskState.TASK_STATE_INPUT_REQUIRED, said: `${ANSWER.join('')}\n${QUESTION}` },
      ],
    },
  });
  ({ gateway, client } = await startKeyedFacade({ url: agent.url }));
});
afterAll(async () => {
  await stopKeyedFacade(gateway);
  await agent?.close();
});

describe('an answer streamed from a line break on, then said again with a question', () => {
  it('message/stream, message/send and tasks/get: the answer once, then the question, waiting for input', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('deploy the stack')));
    expect(streamedText(events)).toBe(READ);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });

    const { result: sent }: any = await client.sendMessage(sdkParams('deploy the stack'));
    expect(sentText(sent)).toBe(READ);
    expect(sent.status.state).toBe('input-required');

    for (const id of [events[0].id, sent.id]) {
      const { result: got }: any = await client.getTask({ id });
      expect(sentText(got)).toBe(READ);
      expect(got.status.state).toBe('input-required');
    }
  });
});
