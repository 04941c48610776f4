/**
 * The one 1.0 method table both 1.0 clients (JSON-RPC, gRPC) use: it names every AgentPort method,
 * agrees with the gRPC service table, and the port built from it calls each method by its own name.
 */
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../../src/core/agent-port.js';
import { A2AError } from '../../../src/model/index.js';
import { GRPC_METHODS } from '../../../src/protocol/grpc.js';
import { V1_STREAMING_METHODS, V1_UNARY_METHODS, streamEvent, unaryResult, v1AgentPort } from '../../../src/upstream/v1/methods.js';

const task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };
const ctx = { principal: 'p', signal: new AbortController().signal } satisfies CallContext;

describe('V1_UNARY_METHODS and V1_STREAMING_METHODS', () => {
  it('cover every gRPC method, with the same operation', () => {
    const table = { ...V1_UNARY_METHODS, ...V1_STREAMING_METHODS };
    expect(Object.keys(table).sort()).toEqual(Object.keys(GRPC_METHODS).sort());
    for (const [name, method] of Object.entries(table)) {
      expect(method.operation).toBe(GRPC_METHODS[name as keyof typeof GRPC_METHODS].operation);
    }
  });

  it('a well-formed answer passes as is; a bad one is -32006 naming the method and the field', () => {
    const answer = { task };
    expect(unaryResult('sendMessage', answer)).toBe(answer);
    expect(() => unaryResult('getTask', { id: 't-1' })).toThrow(/invalid GetTask result \(at status\)/);
    expect(() => unaryResult('getTask', { id: 't-1' })).toThrow(A2AError);
    expect(unaryResult('deleteTaskPushNotificationConfig', null)).toBeNull();
    expect(unaryResult('deleteTaskPushNotificationConfig', {})).toEqual({});
    expect(streamEvent({ task })).toEqual({ task });
    expect(() => streamEvent({ nothing: true })).toThrow(/invalid stream event/);
  });
});

describe('v1AgentPort', () => {
  it('each port method makes one call, by its own name, with the request as params', async () => {
    const calls: Array<[string, unknown]> = [];
    const port = v1AgentPort({
      unary: async (name, params) => {
        calls.push([name, params]);
        return undefined as never;
      },
      stream: (name, params) => {
        calls.push([name, params]);
        return (async function* () {})();
      },
    });
    const request = { id: 'req' } as never;
    for (const name of Object.keys(V1_UNARY_METHODS) as Array<keyof typeof V1_UNARY_METHODS>) {
      if (name === 'getExtendedAgentCard') await port.getExtendedAgentCard(ctx);
      else await (port[name] as (req: unknown, c: CallContext) => Promise<unknown>)(request, ctx);
    }
    for (const name of Object.keys(V1_STREAMING_METHODS) as Array<keyof typeof V1_STREAMING_METHODS>) {
      for await (const _ of port[name](request, ctx)) void _;
    }
    expect(calls).toEqual([
      ...Object.keys(V1_UNARY_METHODS).map((name) => [name, name === 'getExtendedAgentCard' ? {} : request]),
      ...Object.keys(V1_STREAMING_METHODS).map((name) => [name, request]),
    ]);
  });
});
