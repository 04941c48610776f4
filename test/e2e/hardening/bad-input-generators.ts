/**
 * What the bad-input properties (bad-input.test.ts) send: hostile values, valid requests mutated at
 * any depth, anything a caller might POST to a JSON-RPC endpoint, and the dialect its errors are in.
 */
import fc from 'fast-check';
import { HOSTILE_IDS, PROTOTYPE_NAMES, envelope, v025Message, v1Message } from './inputs.js';
import { V025_HEADERS, V1_HEADERS, type Dialect } from './support.js';

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
export const hostileString = fc.constantFrom(...HOSTILE_IDS);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1.5, 2 ** 53, -(2 ** 63), 1e308, true, null, [], {}) },
);

export interface Target {
  name: string;
  path: string;
  dialect: Dialect;
  headers: Record<string, string>;
  valid: Record<string, unknown>;
}

export const TARGETS: Target[] = [
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
    // A copy: constantFrom hands out the same `{}` and `[]` every time, so placed as they are, a later change could
    // add one into itself (a cycle) or into every later run's.
    const value = structuredClone(change.value);
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
      holder[last] = value;
    } else {
      const target = holder[last];
      if (typeof target === 'object' && target !== null && !Array.isArray(target)) {
        // defineProperty: a key named __proto__ must become an own property, as JSON.parse makes it.
        Object.defineProperty(target, change.key, { value, enumerable: true, writable: true, configurable: true });
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
export function bodies(target: Target): fc.Arbitrary<Sent> {
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
export function dialectFor(target: Target, payload: unknown): Dialect {
  const method = (payload as { method?: unknown } | null)?.method;
  return target.path === '/' && typeof method === 'string' && /^[A-Z][A-Za-z]+$/.test(method) ? '1.0' : '0.2.5';
}

/** `id` percent-encoded; a lone surrogate becomes the invalid UTF-8 it would be on the wire. */
export function pathSegment(id: string): string {
  if (id === '') return '%20';
  try {
    return encodeURIComponent(id);
  } catch {
    return id.replace(/[\ud800-\udfff]/g, '%ED%A0%80');
  }
}
