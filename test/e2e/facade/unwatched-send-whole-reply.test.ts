/**
 * What opens the reply a Bailian user reads after a turn they stopped watching. A message/stream they hung up
 * showed them part of the turn: the next message shows "the rest" of it. A message/send they hung up (Bailian's own
 * time-out) showed them nothing (its one answer comes at the turn's end): the next message shows the turn whole, and
 * must say that it is the reply to their previous message, not "the rest" of one they never read a word of; so
 * too when the next message is the same one again (Bailian's retry).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startDemoAgent, type RunningDemoAgent } from '../../../src/demo-agent/index.js';
import { EN } from '../../../src/surfaces/v025/reply/words-en.js';
import { openStream, reading, rpc, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const PROMPT = 'slow: w01 w02 w03 w04 w05 w06 w07 w08';
/** How any reply after a cut opens its rest; the reply whole opens otherwise. */
const REST_WORDS = 'Here is the rest of the reply';

/** The text of the agent's messages in the conversation's task so far (A2A 1.0 ListTasks). */
async function agentSaid(agentUrl: string, contextId: string): Promise<string> {
  const { body } = await rpc(`${agentUrl}/`, 'ListTasks', { contextId, historyLength: 100 }, { headers: { 'A2A-Version': '1.0' } });
  const task = body.result?.tasks?.[0];
  return [...(task?.history ?? []), ...(task?.status?.message ? [task.status.message] : [])]
    .filter((message: any) => message.role === 'ROLE_AGENT')
    .map((message: any) => (message.parts ?? []).map((part: any) => part.text ?? '').join(''))
    .join('');
}

// Each case a conversation of its own: they run at once, each waiting on the agent's pacing.
describe.concurrent('the words that open the next reply after a Bailian user stopped watching a turn', () => {
  let agent: RunningDemoAgent;
  let gateway: RunningGateway;
  /**
   * The turn's text as a user who watched it to its end reads it: read while the cases run (each needs it only to
   * compare with at its end). A failed read fails the cases that await it.
   */
  let unbrokenRead: Promise<string>;
  beforeAll(async () => {
    agent = await startDemoAgent({ slowChunkDelayMs: 40 });
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    unbrokenRead = reading(gateway.url, 'message/stream', PROMPT, `unbroken-${randomUUID()}`);
    unbrokenRead.catch(() => undefined);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  /** A message/send hung up (Bailian's time-out) once the agent said "w03": its user read nothing of it. */
  async function sendHungUp(contextId: string): Promise<void> {
    const caller = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage({ text: PROMPT, contextId }) } });
    const sent = fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: caller.signal });
    await waitUntil(async () => (await agentSaid(agent.url, contextId)).includes('w03'));
    caller.abort();
    await sent.catch(() => undefined);
    // The gateway hears of the hang-up before the next message.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  /** A message/stream hung up once its user read "w03". Returns what they read. */
  async function streamHungUp(contextId: string): Promise<string> {
    const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: PROMPT, contextId }) });
    const events: any[] = [];
    for (let frame = await opened.next(); frame && !streamedText(events).includes('w03'); frame = await opened.next()) events.push(frame.json.result);
    opened.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return streamedText(events);
  }

  it.each(['message/send', 'message/stream'] as const)(
    'after a hung-up message/send, the next message (%s) opens with the reply to the previous message, then the answer whole',
    async (method) => {
      const contextId = `send-hung-up-${randomUUID()}`;
      await sendHungUp(contextId);
      const said = await reading(gateway.url, method, 'Also list my VPCs', contextId);
      const lead = EN.notPassedOn(EN.cutTurnWhole);
      expect(said.startsWith(`${lead}\n\n`), said).toBe(true);
      expect(said).toContain('Here is the reply to your previous message');
      expect(said).toContain('The message you just sent was not passed to the agent');
      expect(said).not.toContain(REST_WORDS);
      expect(said.slice(`${lead}\n\n`.length)).toBe(await unbrokenRead);
      // "status?" asks only to see the reply: it reads the same reply, not told it was not passed on.
      const asked = `send-hung-up-status-${randomUUID()}`;
      await sendHungUp(asked);
      expect(await reading(gateway.url, method, 'status?', asked)).toBe(`${EN.cutTurnWhole}\n\n${await unbrokenRead}`);
    },
  );

  it('after a hung-up message/send, the same message again (Bailian’s retry) opens with its whole reply, not to be sent again', async () => {
    const contextId = `send-hung-up-retried-${randomUUID()}`;
    await sendHungUp(contextId);
    const said = await reading(gateway.url, 'message/send', PROMPT, contextId);
    expect(said.startsWith(`${EN.cutTurnWholeOfSameMessage}\n\n`), said).toBe(true);
    expect(said).toContain("Here is the agent's whole reply to it");
    expect(said).not.toContain('rest of');
    expect(said.slice(`${EN.cutTurnWholeOfSameMessage}\n\n`.length)).toBe(await unbrokenRead);
  });

  it.each(['message/send', 'message/stream'] as const)(
    'after a hung-up message/stream, the next message (%s) opens with the rest of the reply, then what follows what was read',
    async (method) => {
      const contextId = `stream-hung-up-${randomUUID()}`;
      const read = await streamHungUp(contextId);
      expect(read).toContain('w03');
      const said = await reading(gateway.url, method, 'status?', contextId);
      expect(said.startsWith(`${EN.cutTurnRest}\n\n`), said).toBe(true);
      expect(said).toContain('Here is the rest of the reply to your previous message');
      const rest = said.slice(`${EN.cutTurnRest}\n\n`.length);
      // What was read, then the rest, reads as the unbroken turn, but for a chunk sent as the user hung up.
      const unbroken = await unbrokenRead;
      expect(unbroken.endsWith(rest)).toBe(true);
      expect(unbroken.slice(read.length, unbroken.length - rest.length)).toMatch(/^(w\d\d )?$/);
    },
  );
});
