import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TASK_STATES,
  type Message,
  type Part,
  type SendMessageRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import {
  V025_TASK_STATES,
  isV025FinalState,
  type V025Message,
  type V025MessageSendParams,
  type V025Part,
  type V025StreamEvent,
  type V025Task,
  type V025TaskPushNotificationConfig,
} from '../../../src/protocol/v025/index.js';
import {
  messageToV025,
  messageToV1,
  partToV025,
  partToV1,
  pushConfigToV025,
  pushConfigToV1,
  sendParamsToV1,
  sendRequestToV025,
  streamEventToV1,
  streamResponseToV025,
  taskToV025,
  taskToV1,
} from '../../../src/translate/index.js';

/**
 * Round trips keep everything both versions can express. What one side cannot express is
 * normalised in the expectation: a 0.2.5 `final` flag (1.0 has none, it is recomputed), an absent
 * `blocking`/`acceptedOutputModes` (written explicitly as their defaults), a missing status timestamp
 * (0.2.5 gets "now").
 */
const profile = loadMappingProfile('a2a-0.2.5');
const NOW = '2030-01-01T00:00:00.000Z';
const now = () => NOW;
const RUNS = { numRuns: 200 };

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const strip = <T extends object>(value: T): T => JSON.parse(JSON.stringify(value)) as T; // drop undefined keys
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/).filter((k) => k !== 'a2a_bridge' && k !== 'data_part_compat');
const json = fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('__proto__'));
const object = fc.dictionary(key, json, { maxKeys: 3 });
const metadata = optional(fc.dictionary(key, json, { minKeys: 1, maxKeys: 3 }));
const id = fc.stringMatching(/^[A-Za-z0-9_.:-]{1,12}$/);
const base64 = fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('base64'));
const mime = optional(fc.constantFrom('text/plain', 'image/png', 'application/json', 'text/markdown'));
const name = optional(fc.stringMatching(/^[a-z]{1,6}\.[a-z]{2,3}$/));
const timestamp = fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString());

// ---- 0.2.5 arbitraries
const part025: fc.Arbitrary<V025Part> = fc
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
const message025: fc.Arbitrary<V025Message> = fc
  .record({
    kind: fc.constant('message' as const),
    messageId: id,
    role: role025,
    parts: fc.array(part025, { minLength: 1, maxLength: 3 }),
    contextId: optional(id),
    taskId: optional(id),
    referenceTaskIds: optional(fc.array(id, { maxLength: 2 })),
    extensions: optional(fc.array(fc.webUrl(), { maxLength: 2 })),
    metadata,
  })
  .map(strip);
const status025 = fc
  .record({ state: fc.constantFrom(...V025_TASK_STATES), timestamp: optional(timestamp), message: optional(message025) })
  .map(strip);
const artifact025 = fc
  .record({ artifactId: id, name: optional(fc.string()), parts: fc.array(part025, { minLength: 1, maxLength: 2 }), metadata })
  .map(strip);
const task025: fc.Arbitrary<V025Task> = fc
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
const pushConfig025: fc.Arbitrary<V025TaskPushNotificationConfig> = fc.record({ taskId: id, pushNotificationConfig: pushBody025 }).map(strip);
const event025: fc.Arbitrary<V025StreamEvent> = fc.oneof(
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
const sendParams025: fc.Arbitrary<V025MessageSendParams> = fc
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
const part1: fc.Arbitrary<Part> = fc
  .tuple(
    fc.oneof(fc.record({ text: fc.string() }), fc.record({ raw: base64 }), fc.record({ url: fc.webUrl() }), fc.record({ data: json })),
    fc.record({ mediaType: mime, filename: name, metadata }),
  )
  .map(([content, extra]) => strip({ ...content, ...extra }));
const message1: fc.Arbitrary<Message> = fc
  .record({
    messageId: id,
    role: fc.constantFrom('ROLE_USER' as const, 'ROLE_AGENT' as const),
    parts: fc.array(part1, { minLength: 1, maxLength: 3 }),
    contextId: optional(id),
    taskId: optional(id),
    referenceTaskIds: optional(fc.array(id, { maxLength: 2 })),
    extensions: optional(fc.array(fc.webUrl(), { maxLength: 2 })),
    metadata,
  })
  .map(strip);
const status1 = fc.record({ state: fc.constantFrom(...TASK_STATES), timestamp: optional(timestamp), message: optional(message1) }).map(strip);
const artifact1 = fc
  .record({ artifactId: id, description: optional(fc.string()), parts: fc.array(part1, { minLength: 1, maxLength: 2 }), metadata })
  .map(strip);
const task1: fc.Arbitrary<Task> = fc
  .record({
    id,
    contextId: id,
    status: status1,
    artifacts: optional(fc.array(artifact1, { maxLength: 2 })),
    history: optional(fc.array(message1, { maxLength: 2 })),
    metadata,
  })
  .map(strip);
const pushConfig1: fc.Arbitrary<TaskPushNotificationConfig> = fc
  .record({
    taskId: id,
    id: optional(id),
    url: fc.webUrl(),
    token: optional(fc.string()),
    authentication: optional(fc.record({ scheme: fc.constantFrom('Bearer', 'Basic'), credentials: optional(fc.string()) }).map(strip)),
  })
  .map(strip);
const sendRequest1: fc.Arbitrary<SendMessageRequest> = fc
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

// ---- expectations for what one side cannot express
const withTimestamp = <S extends { timestamp?: string }>(status: S): S => ({ ...status, timestamp: status.timestamp ?? NOW });
const task025Stamped = (task: V025Task): V025Task => ({ ...task, status: withTimestamp(task.status) });
const task1Stamped = (task: Task): Task => ({ ...task, status: withTimestamp(task.status) });

describe('round trip 0.2.5 → 1.0 → 0.2.5', () => {
  it('parts (text, file bytes/uri, data)', () => {
    fc.assert(
      fc.property(part025, (part) => {
        expect(partToV025(partToV1(part, profile), profile)).toStrictEqual(part);
      }),
      RUNS,
    );
  });
  it('messages', () => {
    fc.assert(
      fc.property(message025, (m) => {
        expect(messageToV025(messageToV1(m, profile), profile)).toStrictEqual(m);
      }),
      RUNS,
    );
  });
  it('tasks', () => {
    fc.assert(
      fc.property(task025, (t) => {
        expect(taskToV025(taskToV1(t, profile), profile, { now })).toStrictEqual(task025Stamped(t));
      }),
      RUNS,
    );
  });
  it('stream events (final is recomputed from the state)', () => {
    fc.assert(
      fc.property(event025, (event) => {
        const back = streamResponseToV025(streamEventToV1(event, profile), profile, { now });
        if (event.kind === 'status-update') {
          expect(back).toStrictEqual({ ...event, status: withTimestamp(event.status), final: isV025FinalState(event.status.state) });
        } else if (event.kind === 'task') {
          expect(back).toStrictEqual(task025Stamped(event));
        } else {
          expect(back).toStrictEqual(event);
        }
      }),
      RUNS,
    );
  });
  it('push configs (one scheme)', () => {
    fc.assert(
      fc.property(pushConfig025, (c) => {
        expect(pushConfigToV025(pushConfigToV1(c))).toStrictEqual(c);
      }),
      RUNS,
    );
  });
  it('send params (blocking and acceptedOutputModes written as their defaults)', () => {
    fc.assert(
      fc.property(sendParams025, (params) => {
        const expected = params.configuration
          ? {
              ...params,
              configuration: {
                ...params.configuration,
                acceptedOutputModes: params.configuration.acceptedOutputModes ?? [],
                blocking: params.configuration.blocking ?? true,
              },
            }
          : params;
        expect(sendRequestToV025(sendParamsToV1(params, profile), profile)).toStrictEqual(expected);
      }),
      RUNS,
    );
  });
});

describe('round trip 1.0 → 0.2.5 → 1.0', () => {
  it('parts (mediaType/filename on every kind, non-object data)', () => {
    fc.assert(
      fc.property(part1, (part) => {
        expect(partToV1(partToV025(part, profile), profile)).toStrictEqual(part);
      }),
      RUNS,
    );
  });
  it('messages', () => {
    fc.assert(
      fc.property(message1, (m) => {
        expect(messageToV1(messageToV025(m, profile), profile)).toStrictEqual(m);
      }),
      RUNS,
    );
  });
  it('tasks', () => {
    fc.assert(
      fc.property(task1, (t) => {
        expect(taskToV1(taskToV025(t, profile, { now }), profile)).toStrictEqual(task1Stamped(t));
      }),
      RUNS,
    );
  });
  it('stream events', () => {
    const stream1 = fc.oneof(
      task1.map((task) => ({ task })),
      message1.map((message) => ({ message })),
      fc.record({ taskId: id, contextId: id, status: status1, metadata }).map((e) => ({ statusUpdate: strip(e) })),
      fc
        .record({ taskId: id, contextId: id, artifact: artifact1, append: optional(fc.boolean()), lastChunk: optional(fc.boolean()), metadata })
        .map((e) => ({ artifactUpdate: strip(e) })),
    );
    fc.assert(
      fc.property(stream1, (event) => {
        const back = streamEventToV1(streamResponseToV025(event, profile, { now }), profile);
        if ('task' in event) expect(back).toStrictEqual({ task: task1Stamped(event.task) });
        else if ('statusUpdate' in event)
          expect(back).toStrictEqual({ statusUpdate: { ...event.statusUpdate, status: withTimestamp(event.statusUpdate.status) } });
        else expect(back).toStrictEqual(event);
      }),
      RUNS,
    );
  });
  it('push configs', () => {
    fc.assert(
      fc.property(pushConfig1, (c) => {
        expect(pushConfigToV1(pushConfigToV025(c))).toStrictEqual(c);
      }),
      RUNS,
    );
  });
  it('send requests (returnImmediately false = absent; acceptedOutputModes always written)', () => {
    fc.assert(
      fc.property(sendRequest1, (request) => {
        const config = request.configuration;
        const expected = config
          ? {
              ...request,
              configuration: strip({
                ...config,
                acceptedOutputModes: config.acceptedOutputModes ?? [],
                returnImmediately: config.returnImmediately || undefined,
              }),
            }
          : request;
        expect(sendParamsToV1(sendRequestToV025(request, profile), profile)).toStrictEqual(expected);
      }),
      RUNS,
    );
  });
});
