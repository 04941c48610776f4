/**
 * A refusal for now (A2AError.retryAfterSeconds) as every binding answers it, with Retry-After and no A2A
 * ErrorInfo: the turn cap's HTTP 429 on JSON-RPC and HTTP+JSON, RESOURCE_EXHAUSTED on gRPC; the registry
 * out of reach HTTP 503 and UNAVAILABLE, its JSON-RPC error the -32603 of before. Told apart by the error,
 * not its code, so an agent's own -32000 stays an ordinary server error.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { A2AError, GATEWAY_FAILURES, GatewayErrorCode, errorDetails, retryAfterHeader, toRestError } from '../../src/model/index.js';
import { toGrpcStatus } from '../../src/surfaces/grpc/status.js';
import { jsonRpcError } from '../../src/surfaces/shared/jsonrpc-endpoint.js';
import { restError } from '../../src/surfaces/v1/rest.js';

const refusal = A2AError.tooManyTurnsInFlight(3);
const agentsOwn = new A2AError(GatewayErrorCode.TooManyTurnsInFlight, 'Server error');

describe('a refusal for now', () => {
  it('is 429 / RESOURCE_EXHAUSTED with Retry-After, and no ErrorInfo (it is not an A2A error)', async () => {
    expect(refusal.statusInfo).toEqual({ httpStatus: 429, grpcStatus: 'RESOURCE_EXHAUSTED' });
    expect(retryAfterHeader(refusal)).toEqual({ 'retry-after': '5' });
    expect(errorDetails(refusal)).toEqual([]);
    expect(toGrpcStatus(refusal)).toMatchObject({ code: status.RESOURCE_EXHAUSTED, details: refusal.message });
    expect(toGrpcStatus(refusal).metadata?.getMap()).toEqual({});

    const rpc = jsonRpcError(1, refusal);
    expect(rpc.status).toBe(429);
    expect(rpc.headers.get('retry-after')).toBe('5');
    expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: refusal.message } });
    const rest = restError(refusal);
    expect(rest.status).toBe(429);
    expect(rest.headers.get('retry-after')).toBe('5');
    expect(toRestError(refusal).body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
  });

  it("an agent's own -32000 is a server error: HTTP 200 on JSON-RPC, 500 / INTERNAL elsewhere, no Retry-After", () => {
    expect(agentsOwn.statusInfo).toEqual({ httpStatus: 500, grpcStatus: 'INTERNAL' });
    expect(retryAfterHeader(agentsOwn)).toEqual({});
    expect(toGrpcStatus(agentsOwn).code).toBe(status.INTERNAL);
    expect(jsonRpcError(1, agentsOwn).status).toBe(200);
    const rest = restError(agentsOwn);
    expect(rest.status).toBe(500);
    expect(rest.headers.get('retry-after')).toBeNull();
  });

  it('says what happened in words an end user can read, with the cap', () => {
    expect(refusal.message).toBe('The agent is busy with too many requests from this client (at most 3 at once). Please try again in a moment.');
  });

  it('the registry out of reach: 503 / UNAVAILABLE with a short Retry-After, the JSON-RPC error of before', async () => {
    const outOfReach = A2AError.registryOutOfReach();
    expect(outOfReach.statusInfo).toEqual({ httpStatus: 503, grpcStatus: 'UNAVAILABLE' });
    expect(errorDetails(outOfReach)).toEqual([]);
    expect(toGrpcStatus(outOfReach)).toMatchObject({ code: status.UNAVAILABLE, details: GATEWAY_FAILURES.registryOutOfReach });
    const rpc = jsonRpcError(1, outOfReach);
    expect([rpc.status, rpc.headers.get('retry-after')]).toEqual([503, '2']);
    expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: GATEWAY_FAILURES.registryOutOfReach } });
    const rest = restError(outOfReach);
    expect([rest.status, rest.headers.get('retry-after')]).toEqual([503, '2']);
    // Told in other words (the facade's user's language), it stays the same refusal.
    expect(outOfReach.toldAs('网关暂时无法记录任务，请稍后重试').statusInfo).toEqual(outOfReach.statusInfo);
  });
});
