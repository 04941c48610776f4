/**
 * The endpoint's answer to a method it does not serve that another endpoint does (`servedElsewhere`): -32601 saying
 * whose it is and where, in that method's error form; a method nobody serves stays a bare -32601.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { A2AError } from '../../../src/model/index.js';
import type { GatewayEnv } from '../../../src/surfaces/shared/env.js';
import type { JsonRpcDialect, JsonRpcId } from '../../../src/surfaces/shared/jsonrpc.js';
import { jsonRpcEndpoint, jsonRpcResult, type ServedElsewhere } from '../../../src/surfaces/shared/jsonrpc-endpoint.js';
import { MAX_JSON_DEPTH } from '../../../src/surfaces/shared/json-depth.js';

const here: JsonRpcDialect = {
  name: 'here',
  handles: (method) => method === 'Here',
  handle: async (request) => jsonRpcResult(request.id, 'served'),
};

/** Refuses in a form of its own, so that the test sees whose form an answer took. */
const otherForm = (call: { id: JsonRpcId; method: string }, error: A2AError): Response =>
  Response.json({ form: 'other', id: call.id, code: error.code, message: error.message });

const elsewhere: ServedElsewhere = { handles: (method) => method === 'other/call', servedAs: 'served at POST /other', refuse: otherForm };

async function post(body: string): Promise<any> {
  const app = new Hono<GatewayEnv>();
  app.post('/', jsonRpcEndpoint([here], { maxBodyBytes: 64 * 1024, servedElsewhere: [elsewhere] }));
  const answer = await app.request('/', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return answer.json();
}

describe('jsonRpcEndpoint with methods served elsewhere', () => {
  it("a method served elsewhere: -32601 saying whose it is and where, in that method's form", async () => {
    expect(await post('{"jsonrpc":"2.0","id":1,"method":"other/call"}')).toEqual({
      form: 'other',
      id: 1,
      code: -32601,
      message: 'other/call is served at POST /other',
    });
  });

  it("an envelope error of a method served elsewhere: in that method's form too", async () => {
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    const answer = await post(`{"jsonrpc":"2.0","id":2,"method":"other/call","params":${deep}}`);
    expect(answer).toMatchObject({ form: 'other', id: 2, code: -32600 });
  });

  it('a method nobody serves: the bare -32601; a method served here: served', async () => {
    expect(await post('{"jsonrpc":"2.0","id":3,"method":"Nowhere"}')).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found' },
    });
    expect(await post('{"jsonrpc":"2.0","id":4,"method":"Here"}')).toEqual({ jsonrpc: '2.0', id: 4, result: 'served' });
  });
});
