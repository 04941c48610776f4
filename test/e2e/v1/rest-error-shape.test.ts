/**
 * Every answer on the HTTP+JSON binding's paths is the binding's error form, a google.rpc.Status
 * `{"error":{"code","status","message","details"}}` with the matching HTTP status, so that a client of
 * that form (a2a-js 1.x) reports the status and words instead of a generic INTERNAL_ERROR: a route asked
 * with a method it does not take (405 UNIMPLEMENTED, with Allow), a path of the binding that names no
 * route or carries a dot segment (404 NOT_FOUND), a caller without credentials (401 UNAUTHENTICATED).
 * What is not the binding's keeps its answers: JSON-RPC's 401, the card's 401, an unknown path's 404.
 * Sent with node:http, which (unlike fetch) sends the method and path exactly as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactRequest } from '../../support/exact-http.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { connect, rejectionOf, sendRequest } from '../../support/sdk-v1-client.js';

const TOKEN = 'shape-token';
const AUTHORIZED = { authorization: `Bearer ${TOKEN}` };

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway({ auth: { token: TOKEN } });
});
afterAll(async () => {
  await gateway?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

async function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const sent = { 'a2a-version': '1.0', 'content-type': 'application/json', ...headers };
  const { status, headers: answered, text } = await exactRequest(gateway.url, method, path, sent, body);
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status, headers: answered, json };
}

/** A google.rpc.Status body for `httpStatus` and `grpcStatus`, with no ErrorInfo (these are not A2A errors). */
function expectStatus(answer: Answer, httpStatus: number, grpcStatus: string): void {
  expect(answer.status).toBe(httpStatus);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.json).toEqual({ error: { code: httpStatus, status: grpcStatus, message: expect.any(String), details: [] } });
}

describe('a route asked with a method it does not take: 405 UNIMPLEMENTED with Allow', () => {
  it.each([
    ['GET', '/message:send', 'POST'],
    ['GET', '/acme/message:stream', 'POST'],
    ['PUT', '/tasks/x', 'GET, HEAD'],
    ['PATCH', '/tasks/x', 'GET, HEAD'],
    ['PUT', '/acme/tasks/x/pushNotificationConfigs/c', 'GET, HEAD, DELETE'],
    ['DELETE', '/tasks', 'GET, HEAD'],
    ['OPTIONS', '/extendedAgentCard', 'GET, HEAD'],
  ])('%s %s', async (method, path, allow) => {
    const answer = await raw(method, path, AUTHORIZED);
    expectStatus(answer, 405, 'UNIMPLEMENTED');
    expect(answer.headers.allow).toBe(allow);
    expect(answer.json.error.message).toBe(`Method Not Allowed: this route takes ${allow}`);
  });
});

describe('a path of the binding that names no route: 404 NOT_FOUND', () => {
  it.each(['/tasks/x/unknown', '/tasks/x/pushNotificationConfigs/c/more', '/a!b/tasks', `/${'t'.repeat(129)}/message:send`])(
    'GET %s',
    async (path) => {
      expectStatus(await raw('GET', path, AUTHORIZED), 404, 'NOT_FOUND');
    },
  );

  it.each(['/tasks/%2e%2e', '/tasks/%2E%2E/x', '/%2e%2e/tasks', '/tasks/./x'])('GET %s (a dot segment, refused by the path guard)', async (path) => {
    const answer = await raw('GET', path, AUTHORIZED);
    expectStatus(answer, 404, 'NOT_FOUND');
    expect(answer.json.error.message).toMatch(/segment/);
  });
});

describe('a caller without credentials on the binding: 401 UNAUTHENTICATED, no WWW-Authenticate', () => {
  it.each([
    ['POST', '/message:send'],
    ['GET', '/tasks/x'],
    ['GET', '/acme/tasks'],
    ['GET', '/extendedAgentCard'],
    ['PUT', '/tasks/x'],
    ['GET', '/tasks/x/unknown'],
  ])('%s %s', async (method, path) => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
      const answer = await raw(method, path, headers, method === 'POST' ? '{}' : undefined);
      expectStatus(answer, 401, 'UNAUTHENTICATED');
      expect(answer.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('the a2a-js 1.x HTTP+JSON client reports the 401 with its words, not a generic failure', async () => {
    const { client } = await connect(gateway.url, 'HTTP+JSON', { token: TOKEN });
    const refused = await rejectionOf(client.sendMessage(sendRequest('hi'), { serviceParameters: { authorization: 'Bearer wrong' } }));
    expect(refused).toMatchObject({ code: 401, message: 'Unauthorized: valid credentials are required' });
  });
});

describe('what is not the binding keeps its answers', () => {
  it('JSON-RPC `POST /` without credentials: 401 {"error":"Unauthorized"}', async () => {
    const answer = await raw('POST', '/', {}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }));
    expect(answer).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
    expect(answer.headers['www-authenticate']).toBeUndefined();
  });

  it('the card without credentials: 401 {"error":"Unauthorized"}', async () => {
    expect(await raw('GET', '/.well-known/agent-card.json')).toMatchObject({ status: 401, json: { error: 'Unauthorized' } });
  });

  it('an unknown path with credentials: the app\'s 404 {"error":"Not Found"}; /health is open', async () => {
    expect(await raw('GET', '/no/such/thing', AUTHORIZED)).toMatchObject({ status: 404, json: { error: 'Not Found' } });
    expect((await raw('GET', '/health')).status).toBe(200);
  });
});
