/**
 * A2A 0.3 HTTP+JSON (proto JSON) ⇄ 1.0: parts, messages, states, tasks, events, requests, push
 * configs, the extended card and the stream shape, both ways where both ways exist.
 */
import { describe, expect, it } from 'vitest';
import { TASK_STATES, type Part } from '../../../src/model/index.js';
import { V03Part, V03RestAgentCard, V03StreamResponse } from '../../../src/protocol/v03/index.js';
import { cardFromV03Rest } from '../../../src/translate/v03/card.js';
import { createV03RestToV1StreamTranslator } from '../../../src/translate/v03/stream.js';
import {
  messageFromV03,
  messageToV03,
  partFromV03,
  partToV03,
  roleFromV03,
  sendRequestToV03,
  sendResponseFromV03,
  stateFromV03,
  stateToV03,
  statusUpdateFromV03,
  taskFromV03,
  taskPushConfigFromV03,
  taskPushConfigToV03,
} from '../../../src/translate/v03/rest.js';

describe('parts', () => {
  const cases: Array<[string, Part, unknown]> = [
    ['text', { text: 'hi', metadata: { k: 1 } }, { text: 'hi', metadata: { k: 1 } }],
    ['bytes', { raw: 'aGk=', mediaType: 'image/png', filename: 'a.png' }, { file: { fileWithBytes: 'aGk=', mimeType: 'image/png', name: 'a.png' } }],
    ['uri', { url: 'https://x/r.pdf', mediaType: 'application/pdf' }, { file: { fileWithUri: 'https://x/r.pdf', mimeType: 'application/pdf' } }],
    ['object data', { data: { a: 1 } }, { data: { data: { a: 1 } } }],
    ['non-object data (wrapped and flagged)', { data: [1, 2] }, { data: { data: { value: [1, 2] } }, metadata: { data_part_compat: true } }],
  ];
  it.each(cases)('%s: 1.0 → 0.3 → 1.0', (_name, v1, v03) => {
    expect(partToV03(v1)).toEqual(v03);
    expect(V03Part.parse(v03)).toEqual(v03);
    expect(partFromV03(V03Part.parse(v03))).toEqual(v1);
  });

  it('URL-safe or unpadded bytes go out in standard base64; text mediaType/filename have no 0.3 field', () => {
    expect(partToV03({ raw: 'a-_b' })).toEqual({ file: { fileWithBytes: 'a+/b' } });
    expect(partToV03({ text: 'x', mediaType: 'text/markdown', filename: 'x.md' })).toEqual({ text: 'x' });
  });

  it('reads `mediaType` as well as `mimeType`, and refuses parts with no or two contents', () => {
    expect(partFromV03(V03Part.parse({ file: { fileWithUri: 'u', mediaType: 'a/b', name: 'n' } }))).toEqual({
      url: 'u',
      mediaType: 'a/b',
      filename: 'n',
    });
    expect(V03Part.safeParse({ metadata: {} }).success).toBe(false);
    expect(V03Part.safeParse({ text: 'a', data: { data: {} } }).success).toBe(false);
    expect(V03Part.safeParse({ file: { mimeType: 'a/b' } }).success).toBe(false);
  });
});

describe('states and roles', () => {
  it.each(TASK_STATES.map((state, number) => [state, number]))('%s (proto number %i) round-trips', (state, number) => {
    const wire = stateToV03(state);
    expect(stateFromV03(wire)).toBe(state);
    expect(stateFromV03(number)).toBe(state);
  });

  it('CANCELED is CANCELLED in 0.3 (1.0 spelling read too); anything else is UNSPECIFIED', () => {
    expect(stateToV03('TASK_STATE_CANCELED')).toBe('TASK_STATE_CANCELLED');
    expect(stateFromV03('TASK_STATE_CANCELLED')).toBe('TASK_STATE_CANCELED');
    expect(stateFromV03('TASK_STATE_CANCELED')).toBe('TASK_STATE_CANCELED');
    expect(stateFromV03('completed')).toBe('TASK_STATE_UNSPECIFIED');
    expect(stateFromV03(undefined)).toBe('TASK_STATE_UNSPECIFIED');
  });

  it('roles: names or numbers; ROLE_UNSPECIFIED or missing is the agent', () => {
    expect([
      roleFromV03('ROLE_USER'),
      roleFromV03(1),
      roleFromV03('ROLE_AGENT'),
      roleFromV03(2),
      roleFromV03('ROLE_UNSPECIFIED'),
      roleFromV03(undefined),
    ]).toEqual(['ROLE_USER', 'ROLE_USER', 'ROLE_AGENT', 'ROLE_AGENT', 'ROLE_AGENT', 'ROLE_AGENT']);
  });
});

describe('messages and tasks', () => {
  it('message: parts ⇄ content; empty proto strings and lists are absent in 1.0', () => {
    const v1 = {
      messageId: 'm',
      role: 'ROLE_USER' as const,
      parts: [{ text: 'hi' }],
      contextId: 'c',
      taskId: 't',
      extensions: ['urn:x'],
      metadata: { a: 1 },
    };
    const wire = messageToV03(v1);
    expect(wire).toEqual({
      messageId: 'm',
      role: 'ROLE_USER',
      content: [{ text: 'hi' }],
      contextId: 'c',
      taskId: 't',
      extensions: ['urn:x'],
      metadata: { a: 1 },
    });
    expect(messageFromV03(wire)).toEqual(v1);
    expect(messageFromV03({ messageId: 'm', role: 2, contextId: '', extensions: [], parts: [{ text: 'later protos say parts' }] })).toEqual({
      messageId: 'm',
      role: 'ROLE_AGENT',
      parts: [{ text: 'later protos say parts' }],
    });
  });

  it('task: states, status message (`message` or `update`), timestamps to RFC 3339 UTC, artifacts and history', () => {
    const task = taskFromV03({
      id: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        update: { messageId: 'm', role: 'ROLE_AGENT', content: [{ text: 'where?' }] },
        timestamp: '2025-07-01T12:00:00+02:00',
      },
      artifacts: [{ artifactId: 'a', name: '', parts: [{ data: { data: { x: 1 } } }] }],
      history: [{ messageId: 'h', role: 'ROLE_USER', content: [{ text: 'go' }] }],
    });
    expect(task).toEqual({
      id: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'where?' }] },
        timestamp: '2025-07-01T10:00:00Z',
      },
      artifacts: [{ artifactId: 'a', parts: [{ data: { x: 1 } }] }],
      history: [{ messageId: 'h', role: 'ROLE_USER', parts: [{ text: 'go' }] }],
    });
  });

  it('status update: `final` dropped, a missing contextId filled', () => {
    expect(statusUpdateFromV03({ taskId: 't', status: { state: 'TASK_STATE_COMPLETED' }, final: true }, 'c')).toEqual({
      taskId: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' },
    });
  });

  it('SendMessageResponse: `task`, or `message`/`msg` with a contextId guaranteed', () => {
    expect(sendResponseFromV03({ msg: { messageId: 'm', content: [{ text: 'x' }] } }, 'c-1')).toEqual({
      message: { messageId: 'm', role: 'ROLE_AGENT', contextId: 'c-1', parts: [{ text: 'x' }] },
    });
    expect(sendResponseFromV03({ task: { id: 't', status: { state: 5 } } }, 'c-1')).toEqual({
      task: { id: 't', status: { state: 'TASK_STATE_CANCELED' } },
    });
  });
});

describe('requests and push configs', () => {
  it('SendMessageRequest: configuration with blocking = !returnImmediately, push config nested, metadata kept', () => {
    const body = sendRequestToV03({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: {
        acceptedOutputModes: ['text/plain'],
        historyLength: 3,
        returnImmediately: true,
        taskPushNotificationConfig: { url: 'https://h/', token: 't', authentication: { scheme: 'Bearer' } },
      },
      metadata: { trace: 'x' },
    });
    expect(body).toEqual({
      message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'hi' }] },
      configuration: {
        acceptedOutputModes: ['text/plain'],
        pushNotification: { url: 'https://h/', token: 't', authentication: { schemes: ['Bearer'] } },
        historyLength: 3,
        blocking: false,
      },
      metadata: { trace: 'x' },
    });
    expect(sendRequestToV03({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }).configuration).toEqual({ blocking: true });
  });

  it('push config: flat 1.0 ⇄ named 0.3; ids from the name when the inner config has none', () => {
    const v1 = { taskId: 't', id: 'c', url: 'https://h/', token: 'x', authentication: { scheme: 'Basic', credentials: 'y' } };
    const wire = taskPushConfigToV03(v1);
    expect(wire).toEqual({
      name: 'tasks/t/pushNotificationConfigs/c',
      pushNotificationConfig: { id: 'c', url: 'https://h/', token: 'x', authentication: { schemes: ['Basic'], credentials: 'y' } },
    });
    expect(taskPushConfigFromV03(wire, 'other')).toEqual(v1);
    expect(
      taskPushConfigFromV03(
        { name: 'tasks/t2/pushNotificationConfigs/c2', pushNotificationConfig: { url: 'u', authentication: { schemes: [] } } },
        'x',
      ),
    ).toEqual({
      taskId: 't2',
      id: 'c2',
      url: 'u',
    });
  });
});

describe('the extended card (proto AgentCard)', () => {
  it('reads like a 0.3 card; proto security schemes and requirements are already 1.0; omitted empty lists default', () => {
    const card = cardFromV03Rest(
      V03RestAgentCard.parse({
        name: 'n',
        url: 'http://a/',
        preferredTransport: 'HTTP+JSON',
        protocolVersion: '0.3.0',
        capabilities: { streaming: true },
        securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-K' } } },
        security: [{ schemes: { key: {} } }],
        skills: [{ id: 's', security: [{ schemes: { key: { list: ['r'] } } }] }],
      }),
    );
    expect(card).toMatchObject({
      name: 'n',
      description: '',
      supportedInterfaces: [{ url: 'http://a/', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' }],
      capabilities: { streaming: true },
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-K' } } },
      securityRequirements: [{ schemes: { key: {} } }],
      defaultInputModes: [],
      skills: [{ id: 's', name: '', tags: [], securityRequirements: [{ schemes: { key: { list: ['r'] } } }] }],
    });
  });
});

describe('createV03RestToV1StreamTranslator', () => {
  const ids = { taskId: 't', contextId: 'c' };
  const ev = (value: unknown) => V03StreamResponse.parse(value);

  it("a message in a task's stream is the task's answer: COMPLETED with it, and the stream ends", () => {
    const translator = createV03RestToV1StreamTranslator();
    translator.push(ev({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }));
    const answered = translator.push(ev({ msg: { messageId: 'm', role: 'ROLE_AGENT', content: [{ text: 'Done.' }] } }));
    expect(answered.done).toBe(true);
    expect(answered.events).toMatchObject([
      { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm', taskId: 't', parts: [{ text: 'Done.' }] } } } },
    ]);
  });

  it('a stream opening with a status update gets a SUBMITTED Task first (the status said once); it ends at final although more could come', () => {
    const translator = createV03RestToV1StreamTranslator();
    const working = { state: 'TASK_STATE_WORKING', timestamp: '2025-07-01T10:00:00.000Z' } as const;
    expect(translator.push(ev({ statusUpdate: { ...ids, status: working } }))).toEqual({
      events: [
        { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED', timestamp: working.timestamp } } },
        { statusUpdate: { ...ids, status: working } },
      ],
      done: false,
    });
    expect(translator.push(ev({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_AUTH_REQUIRED' }, final: true } })).done).toBe(true);
    expect(translator.push(ev({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING' } } }))).toEqual({ events: [], done: true });
  });

  it('an opening artifact update gets a SUBMITTED Task; updates without a contextId take the Task’s', () => {
    const first = createV03RestToV1StreamTranslator({ contextId: 'req' }).push(
      ev({ artifactUpdate: { taskId: 't', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } }),
    );
    expect(first.events[0]).toEqual({ task: { id: 't', contextId: 'req', status: { state: 'TASK_STATE_SUBMITTED' } } });
    const translator = createV03RestToV1StreamTranslator();
    translator.push(ev({ task: { id: 't', contextId: 'from-task', status: { state: 'TASK_STATE_SUBMITTED' } } }));
    expect(translator.push(ev({ statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } } })).events).toEqual([
      { statusUpdate: { taskId: 't', contextId: 'from-task', status: { state: 'TASK_STATE_WORKING' } } },
    ]);
  });

  it('ends after a message, or a state that ends the turn even without `final`; not on a working state', () => {
    const message = createV03RestToV1StreamTranslator({ contextId: 'c' }).push(
      ev({ message: { messageId: 'm', role: 'ROLE_AGENT', content: [{ text: 'hi' }] } }),
    );
    expect(message).toEqual({ events: [{ message: { messageId: 'm', role: 'ROLE_AGENT', contextId: 'c', parts: [{ text: 'hi' }] } }], done: true });
    for (const [state, done] of [
      ['TASK_STATE_COMPLETED', true],
      ['TASK_STATE_INPUT_REQUIRED', true],
      ['TASK_STATE_WORKING', false],
    ] as const) {
      const translator = createV03RestToV1StreamTranslator({ started: true });
      const pushed = translator.push(ev({ statusUpdate: { ...ids, status: { state } } }));
      expect([pushed.events.length, pushed.done]).toEqual([1, done]);
    }
    expect(createV03RestToV1StreamTranslator().push(ev({ task: { id: 't', status: { state: 'TASK_STATE_CANCELLED' } } })).done).toBe(true);
  });

  it("does not end at a continuation's opening Task still INPUT_REQUIRED: it opens with its task as it stands, then answers", () => {
    const translator = createV03RestToV1StreamTranslator({ continues: true });
    expect(translator.push(ev({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } })).done).toBe(false);
    expect(translator.push(ev({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING' } } })).done).toBe(false);
    expect(translator.push(ev({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED' } } })).done).toBe(true);
  });

  // An a2a-js agent that answers a new task with its question as a Task alone holds its stream open after it.
  it("ends at a new task's Task waiting for input: that is the agent's answer", () => {
    const translator = createV03RestToV1StreamTranslator();
    expect(translator.push(ev({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } })).done).toBe(true);
  });
});
