/**
 * A cut turn's rest in front of real a2a-js agents (0.2.5 and 1.x) that stream their reply as a file's appended
 * chunks and close the turn with a status message saying the whole reply again (as the a2a-js samples do). Uncut,
 * a Bailian user reads that reply once (the reply's rules leave the closing restatement out); cut (a message/send
 * past `upstream.request-timeout-ms`, a message/stream Bailian hung up mid-answer), the user reads the start, and the
 * conversation's next message shows the rest: what they read and the rest read together are the agent's reply,
 * each word once, not the rest and then the whole reply again. Read from the task once the turn ended, and
 * followed live while the agent still works (a next message that the bound cuts again goes on in the one after).
 * Not here: a stream hung up and its rest followed live, which once in a CI run (0.2.5 agent) showed one dot less
 * and then the restatement: not yet mended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { startSdkV025Agent, v025Reply } from '../../support/sdk-v025-agent.js';
import { startSdkV1Agent, sdkReply } from '../../support/sdk-v1-agent.js';
import { waitUntil } from '../../support/wait-until.js';

/** The line that ends an answer the bound cut: the agent still works (words.turnLeftRunning). */
const STILL_WORKING = 'but it is still working on your request.';
/** The line that opens the rest, and the blank line after it. */
const REST_LEAD = /^Here is the rest of the reply to your previous message[^\n]*\n\n/;
const PROMPT = 'slow: make a vpc in cn-hangzhou with three vswitches';

interface Agent {
  url: string;
  close(): Promise<void>;
  /** What the agent says to `text`, as its chunks joined. */
  reply(text: string): string;
}

const AGENTS: ReadonlyArray<readonly [string, () => Promise<Agent>]> = [
  ['0.2.5', async () => ({ ...(await startSdkV025Agent({ slowChunkDelayMs: 100 })), reply: (text: string) => v025Reply(text, 1).full })],
  ['1.x', async () => ({ ...(await startSdkV1Agent({ slowChunkDelayMs: 100 })), reply: (text: string) => sdkReply(text, 1).full })],
];

/** An answer without the line that says the agent still works, and whether it had one. */
function withoutStillWorking(text: string): { read: string; cut: boolean } {
  const cut = text.includes(STILL_WORKING);
  return { read: cut ? text.slice(0, text.lastIndexOf('\n')) : text, cut };
}

/** What the conversation's next messages show of the cut turn: each one's rest, until one that was not cut shows its end. */
async function restRead(gatewayUrl: string, contextId: string): Promise<string> {
  let rest = '';
  for (let message = 0; message < 20; message++) {
    const { body } = await rpc(gatewayUrl, 'message/send', { message: userMessage({ text: 'continue', contextId }) });
    const text = sentText(body.result);
    expect(text).toMatch(REST_LEAD);
    const { read, cut } = withoutStillWorking(text.replace(REST_LEAD, ''));
    rest += read;
    if (!cut) return rest;
  }
  throw new Error('the rest never ended');
}

/**
 * What the user read, then the rest, read as the reply: the rest starts right after what they read, but for the
 * dots the gateway may have sent as a stream was hung up (unread, lost with the connection, while the gateway
 * counts them as shown: under load it hears of the hang-up after the agent's next chunk or two), and for one dot
 * read in the loop turn the hang-up came in, which the gateway cannot tell from one that never reached its reader
 * and shows again rather than lose (docs/facade-reply.md; seen with this test's reader on the gateway's own loop
 * beside a busy process, 1 run in 60).
 */
function expectReadOn(read: string, rest: string, reply: string): void {
  const from = reply.length - rest.length;
  const again = reply.slice(Math.min(from, read.length), read.length);
  expect(again).toMatch(/^\.?$/);
  const unread = reply.slice(read.length, Math.max(read.length, from));
  expect(unread).toMatch(/^\.{0,3}$/);
  expect(read.slice(0, read.length - again.length) + unread + rest).toBe(reply);
}

const taskState = async (gatewayUrl: string, id: string): Promise<string | undefined> =>
  (await rpc(gatewayUrl, 'tasks/get', { id })).body.result?.status?.state;

// One suite at a time, one case at a time. Side by side (a loaded host) the rest followed live lost a dot and then
// showed the closing restatement whole again: turn-echo's SnapshotEcho took a new "." equal to the snapshot file's
// last part for an echo. c181d93 (rest-missed-end.ts) mends it at the closing restatement; an agent that does not
// restate still loses such a chunk (not fixed).
describe.each(AGENTS)('the rest of a cut turn of an a2a-js %s agent that closes with its reply whole', (name, start) => {
  let agent: Agent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await start();
    // The bound cuts the reply's 18 chunks, 100 ms apart, once: the rest that follows is shorter than it.
    gateway = await startFacadeGateway({ upstream: { url: agent.url, 'request-timeout-ms': 1200 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  /** A message/send the bound cuts: what its user read of it, and its task. */
  async function sentPastBound(contextId: string): Promise<{ read: string; taskId: string }> {
    const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text: PROMPT, contextId }) });
    const { read, cut } = withoutStillWorking(sentText(body.result));
    expect(cut).toBe(true);
    return { read, taskId: body.result.id };
  }

  /** A message/stream hung up once it showed the start of the reply and one of its dots. */
  async function streamHungUp(contextId: string): Promise<{ read: string; taskId: string }> {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: PROMPT, contextId }) });
    const events: any[] = [];
    while (!streamedText(events).includes('.')) {
      const frame = await stream.next();
      if (!frame) throw new Error('the stream ended before the reply began');
      events.push(...results([frame]));
    }
    stream.abort();
    return { read: streamedText(events), taskId: events[0].id ?? events[0].taskId };
  }

  it('message/send past its bound, the next message after the turn ended: the rest, once', async () => {
    const contextId = `ctx-sent-ended-${name}`;
    const { read, taskId } = await sentPastBound(contextId);
    await waitUntil(async () => (await taskState(gateway.url, taskId)) === 'completed');
    expect(read + (await restRead(gateway.url, contextId))).toBe(agent.reply(PROMPT));
  });

  it('message/send past its bound, the next message while the agent still works: the rest followed live, once', async () => {
    const contextId = `ctx-sent-live-${name}`;
    const { read, taskId } = await sentPastBound(contextId);
    expect(await taskState(gateway.url, taskId)).toBe('working');
    expect(read + (await restRead(gateway.url, contextId))).toBe(agent.reply(PROMPT));
  });

  it('message/stream hung up mid-answer, the next message after the turn ended: the rest, once', async () => {
    const contextId = `ctx-stream-ended-${name}`;
    const { read, taskId } = await streamHungUp(contextId);
    await waitUntil(async () => (await taskState(gateway.url, taskId)) === 'completed');
    expectReadOn(read, await restRead(gateway.url, contextId), agent.reply(PROMPT));
  });
});
