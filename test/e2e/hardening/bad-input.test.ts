/**
 * Bad input, property-based: whatever a caller sends to the real gateway (see inputs.ts),
 * the answer is a clear, protocol-correct error in the caller's version, within a bound, with no
 * stack trace, local path or secret, and the gateway keeps answering. JSON-RPC errors are HTTP 200
 * (401 only for missing credentials); the HTTP+JSON binding answers google.rpc.Status with the
 * code's HTTP status. Fixed examples the generators would rarely reach: bad-input-examples.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import {
  ALL_SECRETS,
  HOSTILE_IDS,
  PROTOTYPE_NAMES,
  UPSTREAM_SECRET,
  envelope,
  post as postTo,
  startHardenedGateway,
  v025Message,
  v1Message,
} from './inputs.js';
import {
  V025_HEADERS,
  V1_HEADERS,
  exchange,
  expectHealthy,
  expectJsonRpcAnswer,
  expectRestAnswer,
  expectRpcEnvelope,
  type Dialect,
  type Exchange,
} from './support.js';

const RUNS = 200;

let gateway: TestGateway;
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype);

beforeAll(async () => {
  gateway = await startHardenedGateway();
});
afterAll(async () => {
  await gateway?.close();
});

/* ----- what is sent ----- */

const V1_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
];
const V025_METHODS = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
];
const hostileString = fc.constantFrom(...HOSTILE_IDS);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1.5, 2 ** 53, -(2 ** 63), 1e308, true, null, [], {}) },
);

interface Target {
  name: string;
  path: string;
  dialect: Dialect;
  headers: Record<string, string>;
  valid: Record<string, unknown>;
}

const TARGETS: Target[] = [
  { name: '1.0 SendMessage on POST /', path: '/', dialect: '1.0', headers: V1_HEADERS, valid: envelope('SendMessage', v1Message) },
  { name: '1.0 SendStreamingMessage on POST /', path: '/', dialect: '1.0', headers: V1_HEADERS, valid: envelope('SendStreamingMessage', v1Message) },
  { name: '0.2.5 message/send on POST /', path: '/', dialect: '0.2.5', headers: V025_HEADERS, valid: envelope('message/send', v025Message) },
  {
    name: '0.2.5 message/stream on POST /stream',
    path: '/stream',
    dialect: '0.2.5',
    headers: V025_HEADERS,
    valid: envelope('message/stream', v025Message),
  },
];

type Path = Array<string | number>;

/** Every path to a value inside `value` (the root excluded). */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

interface Mutation {
  pick: number;
  kind: 'delete' | 'replace' | 'add';
  key: string;
  value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  kind: fc.constantFrom('delete', 'replace', 'replace', 'add'),
  key: fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES, 'kind', 'role', 'parts', 'id'), fc.string({ maxLength: 8 })),
  value: anyValue,
});

/** Wrong types, missing fields and unknown fields at any level of a valid request, envelope included. */
function mutate(valid: unknown, mutations: Mutation[]): unknown {
  const copy = structuredClone(valid) as Record<string, unknown>;
  for (const change of mutations) {
    const paths = pathsOf(copy);
    if (paths.length === 0) break;
    const path = paths[change.pick % paths.length]!;
    let parent: unknown = copy;
    for (const step of path.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[step];
    const last = path.at(-1)!;
    const holder = parent as Record<string | number, unknown>;
    if (change.kind === 'delete') {
      if (Array.isArray(holder)) holder.splice(last as number, 1);
      else delete holder[last];
    } else if (change.kind === 'replace') {
      holder[last] = change.value;
    } else {
      const target = holder[last];
      if (typeof target === 'object' && target !== null && !Array.isArray(target)) {
        // defineProperty: a key named __proto__ must become an own property, as JSON.parse makes it.
        Object.defineProperty(target, change.key, { value: change.value, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return copy;
}

interface Sent {
  text: string;
  payload?: unknown;
}

const methodName = fc.oneof(
  fc.constantFrom(...V1_METHODS, ...V025_METHODS, ...PROTOTYPE_NAMES, 'message/unknown', 'Unknown', 'tasks/list', 'ListTasks '),
  fc.string({ maxLength: 30 }),
  hostileString,
);

/** Anything a caller might POST to a JSON-RPC endpoint. */
function bodies(target: Target): fc.Arbitrary<Sent> {
  const validText = JSON.stringify(target.valid);
  const fromPayload = (payload: unknown): Sent => ({ text: JSON.stringify(payload) ?? 'null', payload });
  return fc.oneof(
    { weight: 5, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((changes) => fromPayload(mutate(target.valid, changes))) },
    { weight: 1, arbitrary: fc.nat({ max: validText.length - 1 }).map((cut) => ({ text: validText.slice(0, cut) })) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ text })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map(fromPayload) },
    {
      weight: 2,
      arbitrary: fc
        .record({ method: methodName, id: anyValue, params: anyValue, jsonrpc: fc.constantFrom('2.0', '2.0', '1.0', 2, undefined) })
        .map(fromPayload),
    },
  );
}

/** Which dialect's errors a request may get: the 1.0 dialect's only for a 1.0 method name on the shared endpoint. */
function dialectFor(target: Target, payload: unknown): Dialect {
  const method = (payload as { method?: unknown } | null)?.method;
  return target.path === '/' && typeof method === 'string' && /^[A-Z][A-Za-z]+$/.test(method) ? '1.0' : '0.2.5';
}

/** A bad input deserves a precise error, not "internal error". */
function expectNotInternal(answer: Exchange): void {
  const error = (answer.json as { error?: { code?: number } } | undefined)?.error;
  expect(error?.code, answer.text.slice(0, 300)).not.toBe(-32603);
}

const post = (path: string, body: string, headers: Record<string, string>): Promise<Exchange> => postTo(gateway.url, path, body, headers);

/* ----- properties ----- */

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
        expect(leaksFree(answer, id), context).toBe(true);
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

/** `id` percent-encoded; a lone surrogate becomes the invalid UTF-8 it would be on the wire. */
function pathSegment(id: string): string {
  if (id === '') return '%20';
  try {
    return encodeURIComponent(id);
  } catch {
    return id.replace(/[\ud800-\udfff]/g, '%ED%A0%80');
  }
}

function leaksFree(answer: Exchange, sent: string): boolean {
  return !ALL_SECRETS.some((secret) => answer.text.includes(secret) && !sent.includes(secret)) && !/^\s+at /m.test(answer.text);
}

describe('prototype pollution', () => {
  it('nothing sent during this file (keys named __proto__ included) polluted Object.prototype', () => {
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeKeys);
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});
