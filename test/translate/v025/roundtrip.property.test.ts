import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import { isV025FinalState, type V025Task } from '../../../src/protocol/v025/index.js';
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
import {
  artifact1,
  event025,
  id,
  message025,
  message1,
  metadata,
  optional,
  part025,
  part1,
  pushConfig025,
  pushConfig1,
  sendParams025,
  sendRequest1,
  status1,
  strip,
  task025,
  task1,
} from './roundtrip-arbitraries.js';

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
