/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 1.x agent whose executor says it works and returns
 * without publishing the turn's end. Spoken to directly, the agent's stream just ends at the working status and
 * its task stays working for good; the next message of the conversation starts a new task. Through the gateway the
 * client reads the same events, then the stream's -32006 that says the agent ended it before the turn's end, at
 * once. And the conversation goes on as it does directly: the gateway kept it busy while the agent said its task
 * works, so every later message was refused as a turn in progress, for good, though the agent runs nothing for it.
 */
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, sendRequest, textOf, TRANSPORTS, type Payload } from '../../support/sdk-v1-client.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from '../facade/script-player-agent.js';
import { connectClient, outline } from '../upstreams/sdk1-client.js';

const WORKING_WORDS = 'Deploying the website now.';
const SCRIPTS = {
  'deploy the website': { steps: [{ status: TaskState.TASK_STATE_WORKING, said: WORKING_WORDS }] },
  'try again': { steps: [{ status: TaskState.TASK_STATE_COMPLETED, said: 'The website is deployed.' }] },
};

let agent: RunningTestAgent;
let gateway: TestGateway;
beforeAll(async () => {
  agent = await startScriptPlayer(SCRIPTS);
  gateway = await startTestGateway({ upstream: { url: agent.url, 'request-timeout-ms': 60_000 } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

/** The stream of `text`: its payloads, and the error it ended with, if any. */
async function streamed(url: string, transport: (typeof TRANSPORTS)[number], text: string): Promise<{ payloads: Payload[]; error?: unknown }> {
  const client = await connectClient(url, transport);
  const payloads: Payload[] = [];
  try {
    for await (const event of client.sendMessageStream(sendRequest(text))) if (event.payload) payloads.push(event.payload);
  } catch (error) {
    return { payloads, error };
  }
  return { payloads };
}

const contextOf = (payloads: Payload[]): string => (payloads[0]?.$case === 'task' ? payloads[0].value.contextId : '');

describe.each(TRANSPORTS)('a turn the agent returns from without its end (%s)', (transport) => {
  it('the agent’s words, then the -32006 that says its stream ended before the turn’s end, at once', async () => {
    const direct = await streamed(agent.url, 'JSONRPC', 'deploy the website');
    expect(direct.error).toBeUndefined();
    const started = Date.now();
    const through = await streamed(gateway.url, transport, 'deploy the website');
    // Far below the gateway's 60 s bound, whatever the host's load.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(through.payloads.map(outline)).toEqual(direct.payloads.map(outline));
    const said = through.payloads.at(-1);
    expect(said?.$case === 'statusUpdate' ? textOf(said.value.status?.message) : '').toBe(WORKING_WORDS);
    expect(String(through.error)).toMatch(/ended the stream before the task reached a final or interrupted state/);
  });

  it('the conversation goes on: its next message is answered, as the agent answers it directly', async () => {
    const { payloads } = await streamed(gateway.url, transport, 'deploy the website');
    const client = await connectClient(gateway.url, transport);
    const next = asTask(await client.sendMessage(sendRequest('try again', { contextId: contextOf(payloads) })));
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(next.status?.message)).toBe('The website is deployed.');
  });
});
