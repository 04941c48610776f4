/**
 * An operator following one task across the bindings: the gRPC call line names the task and context a
 * call was about with the same fields as the HTTP bindings' request line (`taskId`, `contextId`, `state`: a stream's
 * last, as their `stream ended` line says it), so the task's gRPC calls are found the way its JSON-RPC and HTTP+JSON
 * ones are.
 */
import { status } from '@grpc/grpc-js';
import type { Transport } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asTask, collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { grpcFailureOf, grpcTransport, wire } from './grpc-client.js';

let gateway: TestGateway;
let transport: Transport;

beforeAll(async () => {
  gateway = await startDemoGateway({ grpc: { port: 0 } });
  transport = await grpcTransport(gateway);
});
afterAll(async () => {
  await gateway?.close();
});

const getTask = (id: string) => ({ tenant: '', id, historyLength: undefined });

describe('the gRPC call line names the task', () => {
  // The demo agent ends each turn waiting for the next message.
  it('SendMessage: taskId, contextId and state of the answer, as the JSON-RPC request line has them', async () => {
    const logged = gateway.grpcLog().length;
    const task = asTask(await transport.sendMessage(sendRequest('follow me'), wire()));
    expect(gateway.grpcLog().slice(logged)).toMatchObject([
      {
        surface: 'grpc',
        method: 'SendMessage',
        grpcStatus: status.OK,
        taskId: task.id,
        contextId: task.contextId,
        state: 'TASK_STATE_INPUT_REQUIRED',
      },
    ]);

    // The same task read over JSON-RPC: its request line carries the same fields, with the same values.
    const { client } = await connect(gateway.url, 'JSONRPC');
    await client.getTask(getTask(task.id));
    const rpcLine = gateway.requestLog().find((line) => line.surface === 'jsonrpc' && line.method === 'GetTask' && line.taskId === task.id);
    expect(rpcLine).toMatchObject({ taskId: task.id, contextId: task.contextId, state: 'TASK_STATE_INPUT_REQUIRED' });

    // Both bindings' lines are found by the task's id alone.
    const byTask = gateway
      .log()
      .filter((line) => line.taskId === task.id)
      .map((line) => `${String(line.surface)} ${String(line.method)}`);
    expect(byTask).toEqual(['grpc SendMessage', 'jsonrpc GetTask']);
  });

  it("SendStreamingMessage: the task and context of its first event, the state of its last (as the SSE bindings' stream ended line); a follow-up names the context it was sent in", async () => {
    const logged = gateway.grpcLog().length;
    const events = await collect(transport.sendMessageStream(sendRequest('stream me'), wire()));
    const first = events[0]!;
    const ref = first.$case === 'task' ? { taskId: first.value.id, contextId: first.value.contextId } : undefined;
    expect(ref).toBeDefined();
    const last = events.at(-1)!;
    expect(last.$case).toBe('statusUpdate');
    expect(first.$case === 'task' && first.value.status?.state).not.toBe(last.$case === 'statusUpdate' && last.value.status?.state);
    expect(gateway.grpcLog().slice(logged)).toMatchObject([
      { method: 'SendStreamingMessage', grpcStatus: status.OK, ...ref, state: 'TASK_STATE_INPUT_REQUIRED' },
    ]);

    const next = gateway.grpcLog().length;
    const followUp = asTask(await transport.sendMessage(sendRequest('and again', { contextId: ref!.contextId }), wire()));
    expect(followUp.contextId).toBe(ref!.contextId);
    expect(gateway.grpcLog().slice(next)).toMatchObject([{ method: 'SendMessage', taskId: followUp.id, contextId: ref!.contextId }]);
  });

  it('a failed call names the task it asked for, as an HTTP binding does', async () => {
    const logged = gateway.grpcLog().length;
    const failure = await grpcFailureOf(transport.getTask(getTask('no-such-task'), wire()));
    expect(failure).toMatchObject({ status: status.NOT_FOUND, reason: 'TASK_NOT_FOUND' });
    expect(gateway.grpcLog().slice(logged)).toMatchObject([
      { method: 'GetTask', grpcStatus: status.NOT_FOUND, errorCode: -32001, taskId: 'no-such-task' },
    ]);
  });
});
