/**
 * A REAL a2a-js 1.x agent served over gRPC, behind a proxy that breaks the gateway's stream of a turn mid-answer
 * (grpc-breaking-proxy.ts: it resets the stream, or ends it without a status, as a proxy whose hop to the agent
 * broke does), while the agent runs the turn on. grpc-js tells either in words of its own ("Received RST_STREAM
 * with code …"), under INTERNAL, which the gRPC client passed on as a failure of no kind: the facade did not follow
 * the turn again, and a Bailian user read the reply's first words, then grpc-js's, the turn failed; a 1.0 client
 * read grpc-js's words. They are a connection lost mid-call (`connection`), as a reset of an HTTP agent's stream is:
 * the facade follows the task again over gRPC (SubscribeToTask) and the user reads the whole reply, as unbroken, and
 * tasks/get the same; a 1.0 client reads the gateway's words for a lost connection, and GetTask the task as the agent
 * has it, not failed by the break.
 */
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { facadeTurnReads, rpc, sentText, startFacadeGateway, type TurnRead } from '../../support/facade.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { grpcAgentBehindProxy, type GrpcBreakingProxy, type ProxiedGrpcAgent, type StreamBreak } from '../../support/grpc-breaking-proxy.js';
import { Gates, testAgentCard, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import type { RunningSdkServer } from '../../support/sdk-v1-server.js';
import { sendRequest, textOf, wireError, type Payload } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { connectClient, outline } from '../upstreams/sdk1-client.js';

const TOKENS = ['The VPC ', 'quota is ', '10 per ', 'region.'];
const DONE = 'Done: 3 of 10 VPCs used in cn-hangzhou.';

/** The task, two tokens, a GATE, two tokens, completed with DONE. */
class GatedAgent implements AgentExecutor {
  constructor(private readonly gates: Gates) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.gates.taskId = request.taskId;
    const { opening, status } = turnEvents(request);
    bus.publish(opening());
    for (const token of TOKENS.slice(0, 2)) bus.publish(status(TaskState.TASK_STATE_WORKING, token));
    await this.gates.pass();
    for (const token of TOKENS.slice(2)) bus.publish(status(TaskState.TASK_STATE_WORKING, token));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

const TERMINAL = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED];

const CARD = testAgentCard({
  name: 'gated-grpc',
  description: 'An a2a-js 1.x agent over gRPC that streams tokens, stopping at a gate.',
  skill: { id: 'tokens', name: 'Tokens', description: 'Streams a reply in tokens.' },
});

const gates = new Gates();
let behind: ProxiedGrpcAgent;
let proxy: GrpcBreakingProxy;
let agent: RunningSdkServer;
beforeAll(async () => {
  behind = await grpcAgentBehindProxy(CARD, new GatedAgent(gates));
  ({ proxy, agent } = behind);
});
afterAll(async () => {
  gates.reset(0);
  await behind?.close();
});

/** The agent's next turn stops at its gate; its stream is broken `how` after the task and two tokens. */
function breakNextTurn(how: StreamBreak): void {
  gates.reset(1);
  proxy.breakAfter('SendStreamingMessage', 3, how);
}

const brokenAtTheGate = (): Promise<void> => waitUntil(async () => gates.reached === 1 && proxy.of('SendStreamingMessage').at(-1)?.broken === true);

describe('a Bailian user → the facade → the gRPC agent whose stream breaks mid-turn', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
  });

  const ways = facadeTurnReads(() => gateway.url);
  let unbroken: TurnRead;
  it('the unbroken turn reads the same both ways', async () => {
    gates.reset(0);
    unbroken = await ways.stream('plan');
    expect(await ways.send('plan')).toEqual(unbroken);
    expect(unbroken).toEqual({ text: expect.stringContaining(TOKENS.join('')), state: 'completed' });
  });

  /** What the user reads of a turn whose stream breaks `how` at the agent's gate. */
  async function broken(way: 'stream' | 'send', how: StreamBreak): Promise<TurnRead> {
    breakNextTurn(how);
    const subscribed = proxy.of('SubscribeToTask').length;
    const reading = ways[way]('plan');
    await brokenAtTheGate();
    // The agent goes on once the facade follows the task again (the rest comes live), or once the user read the turn.
    let read = false;
    reading.then(
      () => (read = true),
      () => (read = true),
    );
    await waitUntil(async () => read || (proxy.of('SubscribeToTask')[subscribed]?.messages ?? 0) >= 1);
    gates.open();
    return reading;
  }

  for (const how of ['reset', 'ended'] as const) {
    for (const way of ['stream', 'send'] as const) {
      it(`message/${way}, the stream ${how} mid-turn: the user reads the whole reply, followed again over gRPC; tasks/get the same`, async () => {
        expect(await broken(way, how)).toEqual(unbroken);
        const got = await rpc(gateway.url, 'tasks/get', { id: gates.taskId });
        expect({ text: sentText(got.body.result), state: got.body.result?.status.state }).toEqual(unbroken);
      });
    }
  }
});

describe('the official a2a-js 1.x client → gateway → the gRPC agent whose stream breaks mid-turn', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
  });

  it.for(['reset', 'ended'] as const)(
    "the stream %s: the client reads the gateway's words for a lost connection; GetTask then reads the task as the agent has it",
    async (how) => {
      const client = await connectClient(gateway.url, 'JSONRPC');
      breakNextTurn(how);
      const seen: Payload[] = [];
      let failure: string | undefined;
      try {
        for await (const event of client.sendMessageStream(sendRequest('plan'))) if (event.payload) seen.push(event.payload);
      } catch (error) {
        failure = wireError(error).message;
      }
      await brokenAtTheGate();
      expect(seen.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'statusUpdate:TASK_STATE_WORKING']);
      expect(failure).toBe(`SSE event contained an error: ${GATEWAY_FAILURES.upstreamUnavailable} (Code: -32603) Data: {}`);
      gates.open();
      const read = () => client.getTask({ tenant: '', id: gates.taskId, historyLength: undefined });
      await waitUntil(async () => TERMINAL.includes((await read()).status?.state ?? TaskState.TASK_STATE_UNSPECIFIED));
      const task = await read();
      expect([TaskState[task.status?.state ?? 0], textOf(task.status?.message)]).toEqual(['TASK_STATE_COMPLETED', DONE]);
    },
  );
});
