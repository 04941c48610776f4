/**
 * A REAL a2a-js 1.x agent that writes a file in appended chunks (artifact-update, `append: true`, `lastChunk`
 * at the end), whose upstream stream is cut (cutting-proxy.ts) while the file is half written. The SDK's store
 * appends each chunk's parts to the stored artifact, so the snapshot a resubscription opens with holds the
 * file as far as it got, and a chunk the agent sent while the subscription loaded it comes live as well. A
 * Bailian user must read over message/send and message/stream what the unbroken turn shows: every chunk once,
 * in order; also when the agent sends the file again whole after its chunks (the store then holds that whole,
 * cut otherwise than the chunks). The agent stops at gates the test opens, so every cut falls at a known point
 * of the file.
 */
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startCuttingProxy, type CuttingProxy } from '../../support/cutting-proxy.js';
import { facadeTurnReads, rpc, startFacadeGateway, type TurnRead } from '../../support/facade.js';
import { Gates, HeldLoadStore, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';

const WRITING = 'Writing main.tf.';
/** The file's chunks: the second carries two parts. */
const CHUNKS = [['resource "alicloud_vpc" "main" {\n'], ['  cidr_block = "10.0.0.0/8"\n', '  vpc_name   = "main"\n'], ['}\n']];
const DONE = 'Done: main.tf is written.';
/** The prompt of a turn whose agent, after the last chunk, sends the file again whole, as one part (append: false, lastChunk). */
const RESEND = 'write main.tf, then send it whole';
/** How many parts the stored file holds once the agent reached gate `g` (every chunk before it stored). */
const partsAt = (gate: number, resend: boolean): number =>
  resend && gate > CHUNKS.length ? 1 : CHUNKS.slice(0, Math.max(0, gate - 1)).flat().length;

/**
 * task, WRITING, GATE 1, chunk 1, GATE 2, chunk 2 (appended), GATE 3, chunk 3 (appended, the last), GATE 4, completed with DONE.
 * RESEND: chunk 3 is not the last; right after it the whole file (one part, not appended, the last), before GATE 4.
 */
class FileWriter implements AgentExecutor {
  constructor(private readonly gates: Gates) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.gates.taskId = request.taskId;
    const resend = request.userMessage.parts.some((p) => p.content?.$case === 'text' && p.content.value === RESEND);
    const { opening, status, artifact } = turnEvents(request);
    const chunk = (at: number) => artifact('main.tf', CHUNKS[at]!.map(textPart), at > 0, at === CHUNKS.length - 1 && !resend);
    const whole = artifact('main.tf', [textPart(CHUNKS.flat().join(''))], false, true);
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING, WRITING));
    for (let at = 0; at < CHUNKS.length; at++) {
      await this.gates.pass();
      bus.publish(chunk(at));
    }
    if (resend) bus.publish(whole);
    await this.gates.pass();
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

const CARD = {
  name: 'file-writer',
  description: 'An a2a-js 1.x agent that writes a file in appended chunks, stopping at gates.',
  skill: { id: 'write', name: 'Write', description: 'write' },
};

/**
 * Where the stream is cut and what the agent does before the facade's subscription is answered: `events`
 * passed, the agent waiting at gate `at`; with `gap`, it goes on to that gate (0: to the turn's end) before
 * the subscription comes (the snapshot holds it, nothing live does); with `echo`, on to that gate while the
 * subscription loads its snapshot (what it sends is in the snapshot and live too). Then the rest comes live.
 */
interface Cut {
  events: number;
  at: number;
  gap?: number;
  echo?: number;
}

describe('an a2a-js 1.x agent writing a file in appended chunks, its stream cut mid-file, behind the facade', () => {
  const gates = new Gates();
  const store = new HeldLoadStore();
  let proxy: CuttingProxy;
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    proxy = await startCuttingProxy();
    agent = await startSdkTestAgent(CARD, new FileWriter(gates), { taskStore: store, behind: proxy });
    gateway = await startFacadeGateway({ upstream: { url: proxy.url } });
  });
  afterAll(async () => {
    gates.reset(0);
    store.releaseLoad();
    await gateway?.close();
    await proxy?.close();
    await agent?.close();
  });

  const ways = facadeTurnReads(() => gateway.url);
  const { stream, send } = ways;

  /** The turn's task in the agent's store, read past the proxy. */
  const stored = async (): Promise<any> =>
    (await rpc(`${agent.url}/a2a/jsonrpc`, 'GetTask', { id: gates.taskId }, { headers: { 'A2A-Version': '1.0' } })).body.result;
  /** The agent reached gate `gate` (0: the turn's end) and its store holds all it sent before it. */
  const storedUpTo = async (gate: number, prompt: string): Promise<boolean> => {
    const task = await stored();
    if (gate === 0) return task?.status?.state === 'TASK_STATE_COMPLETED';
    const parts = task?.artifacts?.[0]?.parts?.length ?? 0;
    return gates.reached === gate && parts === partsAt(gate, prompt === RESEND) && task?.status?.message?.parts?.[0]?.text === WRITING;
  };

  const PROMPTS = ['write main.tf', RESEND];
  const unbroken: Record<string, TurnRead> = {};
  for (const prompt of PROMPTS) {
    it(`${prompt}: the unbroken turn reads the same both ways, the file whole once`, async () => {
      gates.reset(0);
      const streamed = await stream(prompt);
      expect(await send(prompt)).toEqual(streamed);
      expect(streamed.text).toContain(CHUNKS.flat().join(''));
      expect(streamed.text.split('resource').length).toBe(2);
      expect(streamed.state).toBe('completed');
      unbroken[prompt] = streamed;
    });
  }

  async function broken(way: keyof typeof ways, prompt: string, cut: Cut): Promise<TurnRead> {
    gates.reset(cut.at);
    const subscribedBefore = proxy.of('SubscribeToTask').length;
    proxy.cutAfterEvents('SendStreamingMessage', cut.events);
    if (cut.gap !== undefined || cut.echo !== undefined) proxy.hold('SubscribeToTask');
    const reading = ways[way](prompt);
    await waitUntil(
      async () => gates.reached === cut.at && proxy.of('SendStreamingMessage').at(-1)?.cut === true && (await storedUpTo(cut.at, prompt)),
    );
    if (cut.gap !== undefined) {
      gates.open(cut.gap);
      await waitUntil(() => storedUpTo(cut.gap as number, prompt));
    }
    if (cut.echo !== undefined) {
      // Once the subscription comes, the next load is its own, which listens to the task's events already.
      await waitUntil(async () => proxy.of('SubscribeToTask').length > subscribedBefore);
      store.holdNextLoad();
      proxy.release();
      await waitUntil(async () => store.holding);
      gates.open(cut.echo);
      await waitUntil(() => storedUpTo(cut.echo as number, prompt));
      store.releaseLoad();
    } else {
      proxy.release();
    }
    if (cut.gap !== 0) {
      await waitUntil(async () => (proxy.of('SubscribeToTask')[subscribedBefore]?.events ?? 0) >= 1);
      gates.open();
    }
    return reading;
  }

  const cuts: Array<[string, Cut]> = [
    ['the file begun before the cut, its rest followed live', { events: 3, at: 2 }],
    ['the file begun before the cut, a chunk before the subscription, the end live', { events: 3, at: 2, gap: 3 }],
    ['the file begun before the cut, ended before the subscription', { events: 3, at: 2, gap: 4 }],
    ['the file begun before the cut, the turn ended before the subscription', { events: 3, at: 2, gap: 0 }],
    ['the file begun before the cut, a chunk sent as the subscription loads, the end live', { events: 3, at: 2, echo: 3 }],
    ['the file begun before the cut, its end sent as the subscription loads', { events: 3, at: 2, gap: 3, echo: 4 }],
    ['the file begun after the cut, the end live', { events: 2, at: 2, gap: 3 }],
    ['the file begun after the cut, a chunk sent as the subscription loads, the end live', { events: 2, at: 2, echo: 3 }],
    ['the file begun after the cut, its end sent as the subscription loads', { events: 2, at: 2, gap: 3, echo: 4 }],
    ['the file begun as the subscription loads, its end live', { events: 2, at: 1, echo: 2 }],
  ];
  for (const prompt of PROMPTS) {
    for (const way of ['stream', 'send'] as const) {
      for (const [name, cut] of cuts) {
        it(`${prompt}: ${way}: ${name}: reads as unbroken`, async () => {
          expect(await broken(way, prompt, cut)).toEqual(unbroken[prompt]);
        });
      }
    }
  }
});
