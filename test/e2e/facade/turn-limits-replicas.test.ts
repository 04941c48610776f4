/**
 * The facade's relayed turns (a 0.2.5 agent, past the core) capped across two replicas sharing one
 * Redis (`store: redis`, one prefix), every facade caller one client capped at 1: a stream relayed by
 * replica A makes the official 0.2.5 client's message on replica B refused with the 0.2.5 error before
 * the agent is asked; once A's relayed turn has ended, B relays the next one.
 */
import type { ServerResponse } from 'node:http';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { sdkParams, startFacadeGateway } from '../../support/facade.js';
import { frame, sse, startFakeV025, type FakeCall, type FakeV025 } from '../../support/fake-v025.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { admittedWithin, refusalText } from '../../support/turn-limits.js';

const stores = freshRedisStores('facade-turn-limits-replicas', afterAll);
let agent: FakeV025;
let replicaA: RunningGateway;
let replicaB: RunningGateway;
/** The relayed streams the agent holds: end one to finish its turn. */
const held: Array<() => void> = [];

const task = (call: FakeCall, state: string) => ({ kind: 'task', id: `task-${String(call.id)}`, contextId: 'ctx', status: { state } });

function hold(call: FakeCall, res: ServerResponse): void {
  sse(res, [frame(call, task(call, 'submitted'))], { keepOpen: true });
  held.push(() =>
    res.end(frame(call, { kind: 'status-update', taskId: task(call, '').id, contextId: 'ctx', status: { state: 'completed' }, final: true })),
  );
}

beforeAll(async () => {
  await requireRedis();
  agent = await startFakeV025({ rpc: { 'message/stream': hold, 'message/send': (call, res) => hold(call, res) } });
  const capped = {
    upstream: { url: agent.url },
    ...stores,
    limits: { 'turns-in-flight-per-client': 1 },
  };
  replicaA = await startFacadeGateway(capped);
  replicaB = await startFacadeGateway(capped);
});
afterAll(async () => {
  for (const end of held.splice(0)) end();
  await replicaA?.close();
  await replicaB?.close();
  await agent?.close();
});

const messages = (): number => agent.rpcCalls('message/send').length + agent.rpcCalls('message/stream').length;
/** The 0.2.5 client reports a refused message/stream with the refusal's own words (its one SSE frame). */
const refused = (error: unknown): boolean => error instanceof Error && error.message.includes(refusalText(1));

/** A relayed stream the agent holds, its first event read. */
async function holdStream(client: A2AClient): Promise<AsyncGenerator<unknown>> {
  const stream = client.sendMessageStream(sdkParams('hold'));
  await stream.next();
  return stream;
}

describe('relayed facade turns behind two replicas sharing Redis', () => {
  it("are refused on B while one is relayed by A, and relayed by B once A's has ended", async () => {
    const [onA, onB] = [new A2AClient(replicaA.url), new A2AClient(replicaB.url)];
    const streams = [await holdStream(onA)];
    try {
      const sent = messages();
      // Streamed first: a turn wrongly let in answers its first event at once, where a blocking one would wait for the agent.
      expect(
        refused(
          await holdStream(onB).then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
        'a stream on B is refused',
      ).toBe(true);
      const answer: any = await onB.sendMessage(sdkParams('one too many, on B'));
      expect(answer.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(1) });
      expect(messages(), 'the refused turn never reached the agent').toBe(sent);

      held.shift()!();
      for await (const event of streams.shift()!) expect(event).toBeDefined();
      streams.push(await admittedWithin(() => holdStream(onB), refused));
      expect(((await onA.sendMessage(sdkParams('past the cap, on A'))) as any).error?.code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
    } finally {
      for (const end of held.splice(0)) end();
      for (const stream of streams) await stream.return(undefined);
    }
  });
});
