/**
 * Bad input, property-based: whatever a caller sends to the real gateway (see inputs.ts),
 * the answer is a clear, protocol-correct error in the caller's version, within a bound, with no
 * stack trace, local path or secret, and the gateway keeps answering. JSON-RPC errors are HTTP 200
 * (401 only for missing credentials); the HTTP+JSON binding answers google.rpc.Status with the
 * code's HTTP status. What is sent: bad-input-generators.ts. Fixed examples the generators would
 * rarely reach: bad-input-examples.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { ALL_SECRETS, HOSTILE_IDS, UPSTREAM_SECRET, envelope, post as postTo, startHardenedGateway, v025Message, v1Message } from './inputs.js';
import {
  V025_HEADERS,
  V1_HEADERS,
  exchange,
  expectHealthy,
  expectJsonRpcAnswer,
  expectRestAnswer,
  expectRpcEnvelope,
  leaksIn,
  type Dialect,
  type Exchange,
} from './support.js';
import { TARGETS, bodies, dialectFor, hostileString, pathSegment } from './bad-input-generators.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

let gateway: TestGateway;
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype);

beforeAll(async () => {
  gateway = await startHardenedGateway();
});
afterAll(async () => {
  await gateway?.close();
});

/** A bad input deserves a precise error, not "internal error". */
function expectNotInternal(answer: Exchange): void {
  const error = (answer.json as { error?: { code?: number } } | undefined)?.error;
  expect(error?.code, answer.text.slice(0, 300)).not.toBe(-32603);
}

const post = (path: string, body: string, headers: Record<string, string>): Promise<Exchange> => postTo(gateway.url, path, body, headers);

describe('JSON-RPC bodies: every answer is protocol-correct, bounded and leak-free', () => {
  for (const target of TARGETS) {
    it(`${target.name}: malformed JSON, wrong types at every level, missing fields, unknown methods`, async () => {
      await fc.assert(
        fc.asyncProperty(bodies(target), fc.boolean(), async (sent, withCredentials) => {
          const headers = withCredentials ? target.headers : { 'a2a-version': '1.0' };
          const answer = await post(target.path, sent.text, headers);
          expectJsonRpcAnswer(answer, dialectFor(target, sent.payload), sent);
          expect(answer.text.includes(UPSTREAM_SECRET)).toBe(false);
          if (!answer.frames) expectNotInternal(answer);
          await expectHealthy(gateway.url);
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('HTTP+JSON routes: every answer is google.rpc.Status or a designed JSON body', () => {
  const routes = [
    '/message:send',
    '/message:stream',
    '/tasks',
    '/tasks/{id}',
    '/tasks/{id}:cancel',
    '/tasks/{id}:subscribe',
    '/tasks/{id}/pushNotificationConfigs',
    '/tasks/{id}/pushNotificationConfigs/{id}',
    '/extendedAgentCard',
    '/{id}/tasks',
    '/{id}/message:send',
    '/{id}/{id}/tasks',
  ];
  const segment = fc.oneof(hostileString, fc.string({ maxLength: 20 }), fc.constantFrom('task-1', '%E0%A4%A', '..', '.'));
  const encodeMaybe = (raw: string, encode: boolean): string => {
    if (encode) return pathSegment(raw);
    // Unencoded, but never a character that would end the path early or break the request line.
    // eslint-disable-next-line no-control-regex
    return raw.replace(/[?#\s\u0000-\u001f\u007f]/g, '_');
  };
  const restRequest = fc.record({
    method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'),
    route: fc.constantFrom(...routes),
    ids: fc.array(fc.tuple(segment, fc.boolean()), { minLength: 3, maxLength: 3 }),
    query: fc.option(
      fc.dictionary(
        fc.constantFrom('historyLength', 'pageSize', 'status', 'contextId', 'includeArtifacts', 'statusTimestampAfter', 'A2A-Version'),
        fc.string({ maxLength: 12 }),
      ),
    ),
    body: bodies(TARGETS[0]!).map((sent) => {
      const params = (sent.payload as { params?: unknown } | undefined)?.params;
      return params === undefined ? sent.text : (JSON.stringify(params) ?? '');
    }),
    contentType: fc.constantFrom('application/json', 'application/a2a+json', 'text/plain', 'multipart/form-data; boundary=x', ''),
  });

  it('any method, route, hostile path segment, query and body', async () => {
    await fc.assert(
      fc.asyncProperty(restRequest, async (request) => {
        let index = 0;
        const path = request.route.replace(/\{id\}/g, () => {
          const [raw, encode] = request.ids[index++]!;
          return encodeMaybe(raw, encode) || 'x';
        });
        const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
        const headers: Record<string, string> = { ...V1_HEADERS };
        if (request.contentType) headers['content-type'] = request.contentType;
        const hasBody = request.method !== 'GET';
        const answer = await exchange(`${gateway.url}${path}${query}`, {
          method: request.method,
          headers,
          ...(hasBody ? { body: request.body } : {}),
        });
        expectRestAnswer(answer, `${path} ${request.ids.map(([raw]) => raw).join(' ')} ${query} ${request.body}`);
        expect(answer.status).not.toBe(500);
        await expectHealthy(gateway.url);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('hostile ids', () => {
  const idOperations: Array<{ name: string; opensTask?: boolean; send(id: string): Promise<{ answer: Exchange; dialect: Dialect | 'rest' }> }> = [
    ...['GetTask', 'CancelTask', 'SubscribeToTask'].map((method) => ({
      name: `1.0 ${method}`,
      send: async (id: string) => ({ answer: await post('/', JSON.stringify(envelope(method, { id })), V1_HEADERS), dialect: '1.0' as const }),
    })),
    ...['tasks/get', 'tasks/cancel', 'tasks/resubscribe'].map((method) => ({
      name: `0.2.5 ${method}`,
      send: async (id: string) => ({ answer: await post('/', JSON.stringify(envelope(method, { id })), V025_HEADERS), dialect: '0.2.5' as const }),
    })),
    {
      name: '1.0 SendMessage with the id as contextId and taskId',
      send: async (id: string) => {
        const params = { message: { ...v1Message.message, contextId: id, taskId: id } };
        return { answer: await post('/', JSON.stringify(envelope('SendMessage', params)), V1_HEADERS), dialect: '1.0' as const };
      },
    },
    {
      // A well-formed id the facade does not know opens a task under it (a client-chosen task id).
      name: '0.2.5 message/send with the id as contextId and taskId',
      opensTask: true,
      send: async (id: string) => {
        const params = { message: { ...v025Message.message, contextId: id, taskId: id } };
        return { answer: await post('/', JSON.stringify(envelope('message/send', params)), V025_HEADERS), dialect: '0.2.5' as const };
      },
    },
    ...['/tasks/{id}', '/tasks/{id}:cancel', '/tasks/{id}:subscribe'].map((route) => ({
      name: `REST ${route}`,
      send: async (id: string) => {
        const method = route.endsWith(':cancel') ? 'POST' : 'GET';
        const answer = await exchange(`${gateway.url}${route.replace('{id}', pathSegment(id))}`, { method, headers: V1_HEADERS });
        return { answer, dialect: 'rest' as const };
      },
    })),
  ];

  it.each(HOSTILE_IDS.map((id) => [JSON.stringify(id).slice(0, 40), id] as const))(
    '%s: -32602 (not an id) or -32001 (no such task) on every operation and surface; never a crash',
    async (_label, id) => {
      for (const operation of idOperations) {
        const { answer, dialect } = await operation.send(id);
        const context = `${operation.name}: ${answer.status} ${answer.text.slice(0, 200)}`;
        expect(leaksIn(answer.text, id, ALL_SECRETS), context).toEqual([]);
        if (dialect === 'rest') {
          expectRestAnswer(answer, id);
          expect([400, 404], context).toContain(answer.status);
          continue;
        }
        expect(answer.status, context).toBe(200);
        // tasks/resubscribe answers text/event-stream, its error as the one frame.
        const payload = answer.frames ? JSON.parse(answer.frames[0]?.data ?? 'null') : answer.json;
        const body = expectRpcEnvelope(payload, dialect, 'req-1');
        if (operation.opensTask && body.result !== undefined) {
          expect((body.result as { id: string }).id, context).toBe(id);
          continue;
        }
        expect([-32602, -32001], context).toContain((body.error as { code: number } | undefined)?.code);
      }
      await expectHealthy(gateway.url);
    },
  );
});

describe('prototype pollution', () => {
  it('nothing sent during this file (keys named __proto__ included) polluted Object.prototype', () => {
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeKeys);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});
