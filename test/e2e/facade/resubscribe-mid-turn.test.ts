/**
 * tasks/resubscribe to a turn at work, with the official a2a-js 0.2.5 client, under the default `bailian` profile:
 * its caller reads the reply from its start, every word once, then the rest as it comes, the same text tasks/get
 * shows once the turn ended, after its own stream dropped as beside a stream still open, in a follow-up turn too (whose
 * message a2a-js 0.2.5 keeps out of its task: the question before it is not this turn's). Behind the facade: a real
 * a2a-js 0.2.5 agent that streams appended chunks and stops halfway until the test lets it go on (so the caller
 * joins while it is silent, at a known point), and the demo agent, whose last message says its whole reply again.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { demoReply, startDemoAgent } from '../../../src/demo-agent/index.js';
import { collect, sdkParams, sentText, startFacadeGateway, streamedText } from '../../support/facade.js';
import {
  ALL_TICKS,
  ASK_PREFIX,
  QUESTION,
  startGatedTickingAgent,
  TICKS_AFTER,
  TICKS_BEFORE,
  WORKING,
  type GatedTickingAgent,
} from './gated-ticking-agent.js';

type Events = any[];

/** The place of the first event whose artifact text has `text`. */
const firstWith = (events: Events, text: string): number =>
  events.findIndex((event) => event.kind === 'artifact-update' && event.artifact.parts.some((part: any) => part.text?.includes(text)));

describe('tasks/resubscribe in front of an a2a-js 0.2.5 agent streaming appended chunks', () => {
  let agent: GatedTickingAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startGatedTickingAgent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  /** What tasks/get shows of the task. */
  const gotText = async (id: string): Promise<string> => sentText(((await client.getTask({ id })) as any).result);
  /** The agent's store has the chunks it said before it stopped (tasks/get reads them from it). */
  const storedHalf = (id: string) => expect.poll(() => gotText(id)).toContain(`tick ${TICKS_BEFORE - 1}.`);

  /** The joined reply against what tasks/get shows once the turn ended: the same text, every chunk once, in order. */
  async function expectWholeReply(id: string, events: Events): Promise<string> {
    expect(events[0]).toMatchObject({ kind: 'task', id, status: { state: 'working' } });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const got = await gotText(id);
    expect(got).toContain(WORKING);
    expect(got).toContain(ALL_TICKS.trim());
    expect(streamedText(events)).toBe(got);
    // The words said before the caller joined come before those said after, not folded into the last chunk.
    expect(firstWith(events, 'tick 0.')).toBeLessThan(firstWith(events, `tick ${TICKS_BEFORE}.`));
    return got;
  }

  it('after its stream dropped: the reply from its start, then the rest as the agent says it', async () => {
    const stream = client.sendMessageStream(sdkParams('ticks'));
    const head: any = (await stream.next()).value;
    await stream.return(undefined);
    const stop = await agent.nextStop();
    expect(stop.taskId).toBe(head.id);
    await storedHalf(head.id);
    stop.goOnOnceFollowed();
    const events = await collect(client.resubscribeTask({ id: head.id }));
    await expectWholeReply(head.id, events);
    // The rest came live, chunk by chunk, not as one piece at the end.
    expect(firstWith(events, `tick ${TICKS_BEFORE}.`)).toBeLessThan(firstWith(events, `tick ${TICKS_BEFORE + TICKS_AFTER - 1}.`));
  });

  it('beside the stream still open: both read the same reply, and tasks/get shows it', async () => {
    const stream = client.sendMessageStream(sdkParams('ticks'));
    const head: any = (await stream.next()).value;
    const stop = await agent.nextStop();
    await storedHalf(head.id);
    stop.goOnOnceFollowed();
    const [events, streamed] = await Promise.all([collect(client.resubscribeTask({ id: head.id })), collect(stream)]);
    const got = await expectWholeReply(head.id, events);
    expect(streamedText([head, ...streamed])).toBe(got);
  });

  it('the agent says more between the gateway’s read of the task and its own: shown once, in its place', async () => {
    const stream = client.sendMessageStream(sdkParams('ticks'));
    const head: any = (await stream.next()).value;
    await stream.return(undefined);
    const stop = await agent.nextStop();
    await storedHalf(head.id);
    stop.saysOneMoreAsSubscribed();
    stop.goOnOnceFollowed();
    await expectWholeReply(head.id, await collect(client.resubscribeTask({ id: head.id })));
  });

  it('joined while the agent is silent: the words said so far at once, before what it says next', async () => {
    const stream = client.sendMessageStream(sdkParams('ticks'));
    const head: any = (await stream.next()).value;
    await stream.return(undefined);
    const stop = await agent.nextStop();
    await storedHalf(head.id);
    const resubscription = client.resubscribeTask({ id: head.id });
    // The caller holds the Task before the agent says another word.
    const first = await resubscription.next();
    stop.goOn();
    await expectWholeReply(head.id, [first.value, ...(await collect(resubscription))]);
  });

  it('joined to a follow-up turn (the agent keeps no follow-up in its task): this turn’s reply, not the question before it', async () => {
    const asked = await collect(client.sendMessageStream(sdkParams(`${ASK_PREFIX} deploy`)));
    const { id, contextId } = asked[0];
    // The bailian profile ends a turn that waits for its caller as completed, the question its reply.
    expect(asked.at(-1)).toMatchObject({ kind: 'status-update', final: true });
    expect(streamedText(asked)).toBe(QUESTION);
    const stream = client.sendMessageStream(sdkParams('cn-hangzhou', { taskId: id, contextId }));
    const head: any = (await stream.next()).value;
    const stop = await agent.nextStop();
    expect(stop.taskId).toBe(id);
    await storedHalf(id);
    stop.goOnOnceFollowed();
    const [events, streamed] = await Promise.all([collect(client.resubscribeTask({ id })), collect(stream)]);
    const got = await expectWholeReply(id, events);
    expect(got).not.toContain(QUESTION);
    expect(streamedText([head, ...streamed])).toBe(got);
  });
});

describe('tasks/resubscribe in front of the demo agent', () => {
  let gateway: RunningGateway;
  let closeAgent: () => Promise<void>;
  beforeAll(async () => {
    // Each chunk of a `slow:` prompt 100 ms apart: its 20 closing dots leave the caller two seconds to join.
    const agent = await startDemoAgent({ slowChunkDelayMs: 100 });
    closeAgent = () => agent.close();
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await closeAgent?.();
  });

  it('joined after the reply began: the reply once, from its start, its closing restatement not again', async () => {
    const client = new A2AClient(gateway.url);
    const prompt = 'slow: one two three four five six seven eight nine ten';
    const stream = client.sendMessageStream(sdkParams(prompt));
    const read: Events = [];
    // Joined once the caller's own stream showed the first words.
    for await (const event of stream) {
      read.push(event);
      if (streamedText(read).includes('one two')) break;
    }
    const head = read[0];
    const events = await collect(client.resubscribeTask({ id: head.id }));
    expect(events[0]).toMatchObject({ kind: 'task', id: head.id, status: { state: 'working' } });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(streamedText(events)).toBe(demoReply(prompt, 1).full);
    expect(sentText(((await client.getTask({ id: head.id })) as any).result)).toBe(demoReply(prompt, 1).full);
  });
});
