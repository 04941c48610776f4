/**
 * A real a2a-js 1.x agent that answers a new request with a Task waiting for input, its question on the status,
 * and nothing else (no status-update after it). Its SDK keeps such a stream open (INPUT_REQUIRED keeps the event
 * bus alive for the answer), so the facade must not wait for the agent's next event before it shows the question:
 * a Task that opens a new task already waiting is the whole answer. Only a Task that opens the answer to a question
 * (the waiting task, as the agent took the answer up) is held until the agent shows it went on. A Bailian user
 * (the official 0.2.5 client, X-API-KEY) reads the question at once, in message/stream and message/send, and the
 * answer in the same conversation goes on with that task.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, sdkParams, sentText, streamedText } from '../../support/facade.js';
import { startKeyedFacade, stopKeyedFacade } from '../../support/keyed-fetch.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from './script-player-agent.js';

const QUESTION = 'Which region should I deploy to, cn-hangzhou or cn-beijing?';
let agent: RunningTestAgent;
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startScriptPlayer({ 'deploy a VPC': { bare: true, steps: [{ task: TaskState.TASK_STATE_INPUT_REQUIRED, said: QUESTION }] } });
  // The gateway's own bounds are minutes: each test's 5 s time-out says the question came with the agent's Task.
  ({ gateway, client } = await startKeyedFacade({ url: agent.url }));
});
afterAll(async () => {
  await stopKeyedFacade(gateway);
  await agent?.close();
});

describe('a new task answered with a Task that waits for input, and nothing after it', () => {
  it('message/stream: the question at once, the turn waiting for input', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('deploy a VPC')));
    expect(streamedText(events)).toBe(QUESTION);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    const { result: got }: any = await client.getTask({ id: events[0].id });
    expect(sentText(got)).toBe(QUESTION);
    expect(got.status.state).toBe('input-required');
  }, 5000);

  it('message/send: the same', async () => {
    const { result: sent }: any = await client.sendMessage(sdkParams('deploy a VPC'));
    expect(sentText(sent)).toBe(QUESTION);
    expect(sent.status.state).toBe('input-required');
  }, 5000);
});
