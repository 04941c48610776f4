/**
 * Paths route only to what they name: dot segments (plain or percent-encoded) are a 404 (google.rpc.Status) instead of
 * being resolved into another route, NUL and malformed percent-encoding are a 400, and a tenant
 * prefix follows the id rule (letters, digits, `_ . : -`, at most 128), else the path is not a route.
 * Sent with node:http, which (unlike fetch) sends the path exactly as written.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway();
});
afterAll(async () => {
  await gateway?.close();
});

function raw(method: string, path: string, body?: string): Promise<{ status: number; json: any }> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, method, path, headers: { 'a2a-version': '1.0', 'content-type': 'application/json' }, timeout: 5_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('dot segments are not resolved into another route', () => {
  it.each([
    '/%2e%2e/tasks',
    '/%2E%2E/tasks',
    '/.%2e/tasks',
    '/%2e/tasks',
    '/../tasks',
    '/./tasks',
    '/tenant/../tasks',
    '/tenant/%2e%2e/tasks',
    '/tasks/%2e%2e',
    '/x/%2e%2e/.well-known/agent-card.json',
  ])("GET %s is 404, a google.rpc.Status like the guard's 400s", async (path) => {
    expect(await raw('GET', path)).toEqual({
      status: 404,
      json: { error: expect.objectContaining({ code: 404, status: 'NOT_FOUND', details: [] }) },
    });
  });

  it('POST /%2e%2e/message:send is 404, not a sent message', async () => {
    const body = JSON.stringify({ message: { messageId: 'm-dot', role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    expect((await raw('POST', '/%2e%2e/message:send', body)).status).toBe(404);
  });
});

describe('NUL and malformed encodings are 400', () => {
  it.each(['/%00/tasks', '/tasks/%00', '/tasks/a%00b', '/%ff/tasks', '/tasks/%e0%a4'])('GET %s is 400 INVALID_ARGUMENT', async (path) => {
    const answer = await raw('GET', path);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});

describe('tenants follow the id rule', () => {
  it.each(['acme', 'a.b:c_d-1', 'x'.repeat(128)])('/%s/tasks is ListTasks for that tenant', async (tenant) => {
    const answer = await raw('GET', `/${tenant}/tasks`);
    expect(answer.status).toBe(200);
    expect(answer.json).toHaveProperty('tasks');
  });

  it.each(['x'.repeat(129), 'x'.repeat(5_000), 'a%20b', 'caf%C3%A9', 'a%2Fb', '%3Cscript%3E', 'a!b'])(
    "/%s/tasks is not a route (404, in the HTTP+JSON binding's google.rpc.Status)",
    async (tenant) => {
      expect(await raw('GET', `/${tenant}/tasks`)).toEqual({
        status: 404,
        json: { error: expect.objectContaining({ code: 404, status: 'NOT_FOUND' }) },
      });
    },
  );

  it('a JSON-RPC tenant outside the rule is -32602', async () => {
    for (const tenant of ['x'.repeat(129), 'a b', '\u0000', 'caf\u00e9']) {
      const answer = await raw('POST', '/', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { tenant } }));
      expect(answer.json.error?.code, tenant.slice(0, 10)).toBe(-32602);
    }
    const ok = await raw('POST', '/', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { tenant: '' } }));
    expect(ok.json.result).toHaveProperty('tasks');
  });
});
