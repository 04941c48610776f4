/**
 * The answers of the JSON-RPC endpoint that no scenario reaches on demand carry a request's id as it was
 * written too (test/e2e/conformance/exact-request-ids.test.ts has the rest): a 1.0 stream's `event: error`
 * after its first event, and the app's error handler answering a dialect that threw.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { A2AError, type StreamResponse } from '../../../src/model/index.js';
import type { GatewayEnv } from '../../../src/surfaces/shared/env.js';
import type { JsonRpcDialect } from '../../../src/surfaces/shared/jsonrpc.js';
import { jsonRpcEndpoint } from '../../../src/surfaces/shared/jsonrpc-endpoint.js';
import { unexpectedFailureHandler } from '../../../src/surfaces/shared/unexpected-failure.js';
import { StubPort, V1, buildApp, parseSse, task, userMessage } from '../support.js';

const ID = '12345678901234567890';

/** A request whose top-level id is written `ID`, verbatim. */
const body = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 0, method, params }).replace('"id":0', `"id":${ID}`);

const opening = `{"jsonrpc":"2.0","id":${ID},`;

describe('a 1.0 stream failing after its first event', () => {
  it('ends with an `event: error` frame carrying the id as written, as every frame before it', async () => {
    async function* failing(): AsyncGenerator<StreamResponse> {
      yield { task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) };
      throw A2AError.taskNotFound('task-1');
    }
    const { app } = buildApp({ port: new StubPort({ sendStreamingMessage: () => failing() }) });
    const response = await app.request('/', { method: 'POST', headers: V1, body: body('SendStreamingMessage', { message: userMessage() }) });
    const frames = parseSse(await response.text());
    expect(frames.map((frame) => frame.event)).toEqual([undefined, 'error']);
    for (const frame of frames) expect(frame.data.startsWith(opening), frame.data).toBe(true);
  });
});

describe("the app's error handler", () => {
  it('answers a dialect that threw with the id as written', async () => {
    const broken: JsonRpcDialect = {
      name: 'broken',
      handles: () => true,
      handle: () => Promise.reject(new Error('a bug')),
    };
    const app = new Hono<GatewayEnv>();
    app.post('/', jsonRpcEndpoint([broken], { maxBodyBytes: 1024 }));
    app.onError(unexpectedFailureHandler({ jsonRpcPaths: new Set(['/']) }));
    const response = await app.request('/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('Anything', {}) });
    expect(await response.text()).toBe(`${opening}"error":{"code":-32603,"message":"Internal error"}}`);
  });
});
