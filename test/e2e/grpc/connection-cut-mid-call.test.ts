/**
 * A REAL a2a-js 1.x agent served over gRPC, behind a proxy whose TCP connection from the gateway is cut (closed, or
 * reset) while the agent works on a blocking SendMessage it got, as a network or a proxy that dies mid-call cuts it.
 * grpc-js tells either as UNAVAILABLE ("Connection dropped", "read ECONNRESET"), which the gRPC client told as an
 * agent never reached: the official 1.x client read HTTP+JSON 503 or gRPC UNAVAILABLE, both an invitation to send
 * again, which would run the turn (an IaC deployment) twice, since the agent runs the one it got on. It is a
 * connection lost mid-call, as an HTTP agent's connection reset is: the client reads "Upstream agent is unavailable"
 * without the status that invites a retry (HTTP+JSON 500, gRPC INTERNAL; JSON-RPC -32603 in an HTTP 200 answer, as
 * for either), and the agent was asked once. The operator's log names grpc-js's words as the cause.
 */
import { status } from '@grpc/grpc-js';
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { grpcAgentBehindProxy, type ConnectionCut, type GrpcBreakingProxy, type ProxiedGrpcAgent } from '../../support/grpc-breaking-proxy.js';
import { Gates, testAgentCard, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import type { RunningSdkServer } from '../../support/sdk-v1-server.js';
import { connect, rejectionOf, sendRequest, type RecordingClient } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { grpcFailureOf, grpcTransport, wire } from './grpc-client.js';

const DONE = 'Deployed: 1 VPC in cn-hangzhou.';

/** The task, a GATE, then completed with DONE; it counts the turns it was asked to run. */
class GatedAgent implements AgentExecutor {
  turns = 0;
  constructor(private readonly gates: Gates) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.turns++;
    this.gates.taskId = request.taskId;
    const { opening, status: update } = turnEvents(request);
    bus.publish(opening());
    bus.publish(update(TaskState.TASK_STATE_WORKING, 'Deploying…'));
    await this.gates.pass();
    bus.publish(update(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

const CARD = testAgentCard({
  name: 'deploying-grpc',
  description: 'An a2a-js 1.x agent over gRPC whose turn stops at a gate.',
  skill: { id: 'deploy', name: 'Deploy', description: 'Deploys, in one turn.' },
});

const gates = new Gates();
const executor = new GatedAgent(gates);
let behind: ProxiedGrpcAgent;
let proxy: GrpcBreakingProxy;
let agent: RunningSdkServer;
let gateway: TestGateway;
let rest: RecordingClient;
let jsonRpc: RecordingClient;
beforeAll(async () => {
  behind = await grpcAgentBehindProxy(CARD, executor);
  ({ proxy, agent } = behind);
  gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
  rest = await connect(gateway.url, 'HTTP+JSON');
  jsonRpc = await connect(gateway.url, 'JSONRPC');
});
afterAll(async () => {
  gates.reset(0);
  await gateway?.close();
  await behind?.close();
});

/**
 * What a blocking SendMessage `send` fails with when the gateway's connection is cut `how` once the agent holds the
 * turn at its gate; and how many times the agent was asked, counted once its turn ran on to the end.
 */
async function cutMidTurn<T>(how: ConnectionCut, send: () => Promise<T>): Promise<{ reads: T; asked: number }> {
  gates.reset(1);
  const before = { turns: executor.turns, calls: proxy.of('SendMessage').length };
  const reading = send();
  await waitUntil(async () => gates.reached === 1);
  proxy.cutConnections(how);
  const reads = await reading;
  gates.open();
  await waitUntil(async () => gates.passed === 1);
  expect(proxy.of('SendMessage').length - before.calls).toBe(1);
  return { reads, asked: executor.turns - before.turns };
}

describe('the official a2a-js 1.x client → gateway → the gRPC agent, the connection cut mid-call', () => {
  it.for([
    ['closed', '14 UNAVAILABLE: Connection dropped'],
    ['reset', '14 UNAVAILABLE: read ECONNRESET'],
  ] as const)(
    'the connection %s after the agent got the message: no binding reads the status that invites a retry; the agent was asked once; the log says "%s"',
    async ([how, cause]) => {
      const grpc = await grpcTransport(gateway);
      const reads = {
        'HTTP+JSON': await cutMidTurn(how, () => rejectionOf(rest.client.sendMessage(sendRequest('deploy a VPC')))),
        JSONRPC: await cutMidTurn(how, () => rejectionOf(jsonRpc.client.sendMessage(sendRequest('deploy a VPC')))),
        GRPC: await cutMidTurn(how, () => grpcFailureOf(grpc.sendMessage(sendRequest('deploy a VPC'), wire()))),
      };
      const lost = expect.stringContaining(GATEWAY_FAILURES.upstreamUnavailable);
      expect(reads).toEqual({
        'HTTP+JSON': { reads: expect.objectContaining({ code: 500, message: lost }), asked: 1 },
        JSONRPC: { reads: expect.objectContaining({ code: -32603, message: lost }), asked: 1 },
        GRPC: { reads: expect.objectContaining({ status: status.INTERNAL, message: lost }), asked: 1 },
      });
      const logged = gateway.requestLog().filter((line) => line.method === 'SendMessage');
      expect(logged.slice(-2).map((line) => [line.surface, line.cause])).toEqual([
        ['rest', cause],
        ['jsonrpc', cause],
      ]);
    },
  );
});
