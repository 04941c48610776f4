/**
 * fast-check arbitraries for the round-trip properties (roundtrip.property.test.ts): 0.2.5 and 1.0
 * parts, messages, tasks, stream events, push configs and send parameters, as each version allows them.
 */
import fc from 'fast-check';
import {
  TASK_STATES,
  type Message,
  type Part,
  type SendMessageRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '../../../src/model/index.js';
import {
  V025_TASK_STATES,
  type V025Message,
  type V025MessageSendParams,
  type V025Part,
  type V025StreamEvent,
  type V025Task,
  type V025TaskPushNotificationConfig,
} from '../../../src/protocol/v025/index.js';

export const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
export const strip = <T extends object>(value: T): T => JSON.parse(JSON.stringify(value)) as T; // drop undefined keys
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/).filter((k) => k !== 'a2a_bridge' && k !== 'data_part_compat');
const json = fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('__proto__'));
const object = fc.dictionary(key, json, { maxKeys: 3 });
export const metadata = optional(fc.dictionary(key, json, { minKeys: 1, maxKeys: 3 }));
export const id = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,12}$/);
const base64 = fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('base64'));
const mime = optional(fc.constantFrom('text/plain', 'image/png', 'application/json', 'text/markdown'));
const name = optional(fc.stringMatching(/^[a-z]{1,6}\.[a-z]{2,3}$/));
const timestamp = fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString());

// ---- 0.2.5 arbitraries
export const part025: fc.Arbitrary<V025Part> = fc
  .oneof(
    fc.record({ kind: fc.constant('text' as const), text: fc.string(), metadata }),
    fc.record({
      kind: fc.constant('file' as const),
      file: fc.oneof(fc.record({ bytes: base64, mimeType: mime, name }), fc.record({ uri: fc.webUrl(), mimeType: mime, name })),
      metadata,
    }),
    fc.record({ kind: fc.constant('data' as const), data: object, metadata }),
  )
  .map(strip);
const role025 = fc.constantFrom('user' as const, 'agent' as const);
/** What a message carries besides its role and parts, the same in both versions. */
const messageFields = {
  contextId: optional(id),
  taskId: optional(id),
  referenceTaskIds: optional(fc.array(id, { maxLength: 2 })),
  extensions: optional(fc.array(fc.webUrl(), { maxLength: 2 })),
  metadata,
};
export const message025: fc.Arbitrary<V025Message> = fc
  .record({
    kind: fc.constant('message' as const),
    messageId: id,
    role: role025,
    parts: fc.array(part025, { minLength: 1, maxLength: 3 }),
    ...messageFields,
  })
  .map(strip);
/**
 * The states that come back as they went: 0.2.5's terminal 'unknown' is read as 1.0 FAILED, and 1.0's
 * UNSPECIFIED is written as 'unknown' (mappings/states.json; test/mappings/load.test.ts holds both).
 */
const ROUND_TRIP_V025_STATES = V025_TASK_STATES.filter((state) => state !== 'unknown');
const ROUND_TRIP_V1_STATES = TASK_STATES.filter((state) => state !== 'TASK_STATE_UNSPECIFIED');

const status025 = fc
  .record({ state: fc.constantFrom(...ROUND_TRIP_V025_STATES), timestamp: optional(timestamp), message: optional(message025) })
  .map(strip);
const artifact025 = fc
  .record({ artifactId: id, name: optional(fc.string()), parts: fc.array(part025, { minLength: 1, maxLength: 2 }), metadata })
  .map(strip);
export const task025: fc.Arbitrary<V025Task> = fc
  .record({
    kind: fc.constant('task' as const),
    id,
    contextId: id,
    status: status025,
    artifacts: optional(fc.array(artifact025, { maxLength: 2 })),
    history: optional(fc.array(message025, { maxLength: 2 })),
    metadata,
  })
  .map(strip);
const pushBody025 = fc
  .record({
    id: optional(id),
    url: fc.webUrl(),
    token: optional(fc.string()),
    authentication: optional(
      fc.record({ schemes: fc.tuple(fc.constantFrom('Bearer', 'Basic')).map((s) => [...s]), credentials: optional(fc.string()) }).map(strip),
    ),
  })
  .map(strip);
export const pushConfig025: fc.Arbitrary<V025TaskPushNotificationConfig> = fc.record({ taskId: id, pushNotificationConfig: pushBody025 }).map(strip);
export const event025: fc.Arbitrary<V025StreamEvent> = fc.oneof(
  task025,
  message025,
  fc.record({ kind: fc.constant('status-update' as const), taskId: id, contextId: id, status: status025, final: fc.boolean(), metadata }).map(strip),
  fc
    .record({
      kind: fc.constant('artifact-update' as const),
      taskId: id,
      contextId: id,
      artifact: artifact025,
      append: optional(fc.boolean()),
      lastChunk: optional(fc.boolean()),
      metadata,
    })
    .map(strip),
);
export const sendParams025: fc.Arbitrary<V025MessageSendParams> = fc
  .record({
    message: message025,
    configuration: optional(
      fc
        .record({
          acceptedOutputModes: optional(fc.array(fc.constantFrom('text/plain', 'application/json'), { maxLength: 2 })),
          historyLength: optional(fc.nat(50)),
          pushNotificationConfig: optional(pushBody025),
          blocking: optional(fc.boolean()),
        })
        .map(strip),
    ),
    metadata,
  })
  .map(strip);

// ---- 1.0 arbitraries
export const part1: fc.Arbitrary<Part> = fc
  .tuple(
    fc.oneof(fc.record({ text: fc.string() }), fc.record({ raw: base64 }), fc.record({ url: fc.webUrl() }), fc.record({ data: json })),
    fc.record({ mediaType: mime, filename: name, metadata }),
  )
  .map(([content, extra]) => strip({ ...content, ...extra }));
export const message1: fc.Arbitrary<Message> = fc
  .record({
    messageId: id,
    role: fc.constantFrom('ROLE_USER' as const, 'ROLE_AGENT' as const),
    parts: fc.array(part1, { minLength: 1, maxLength: 3 }),
    ...messageFields,
  })
  .map(strip);
export const status1 = fc
  .record({ state: fc.constantFrom(...ROUND_TRIP_V1_STATES), timestamp: optional(timestamp), message: optional(message1) })
  .map(strip);
export const artifact1 = fc
  .record({ artifactId: id, description: optional(fc.string()), parts: fc.array(part1, { minLength: 1, maxLength: 2 }), metadata })
  .map(strip);
export const task1: fc.Arbitrary<Task> = fc
  .record({
    id,
    contextId: id,
    status: status1,
    artifacts: optional(fc.array(artifact1, { maxLength: 2 })),
    history: optional(fc.array(message1, { maxLength: 2 })),
    metadata,
  })
  .map(strip);
export const pushConfig1: fc.Arbitrary<TaskPushNotificationConfig> = fc
  .record({
    taskId: id,
    id: optional(id),
    url: fc.webUrl(),
    token: optional(fc.string()),
    authentication: optional(fc.record({ scheme: fc.constantFrom('Bearer', 'Basic'), credentials: optional(fc.string()) }).map(strip)),
  })
  .map(strip);
export const sendRequest1: fc.Arbitrary<SendMessageRequest> = fc
  .record({
    message: message1,
    configuration: optional(
      fc
        .record({
          acceptedOutputModes: optional(fc.array(fc.constantFrom('text/plain', 'application/json'), { maxLength: 2 })),
          historyLength: optional(fc.nat(50)),
          taskPushNotificationConfig: optional(pushConfig1.map(({ taskId: _, ...body }) => body)),
          returnImmediately: optional(fc.boolean()),
        })
        .map(strip),
    ),
    metadata,
  })
  .map(strip);
