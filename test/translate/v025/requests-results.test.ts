import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/model/index.js';
import { loadMappingProfile } from '../../../src/mappings/index.js';
import {
  deletePushConfigParamsToV1,
  deletePushConfigRequestToV025,
  deleteResultToV025,
  deleteResultToV1,
  getPushConfigParamsToV1,
  getPushConfigRequestToV025,
  getTaskParamsToV1,
  listPushConfigsParamsToV1,
  pushConfigListToV025,
  pushConfigListToV1,
  pushConfigToV025,
  pushConfigToV1,
  requestToV025,
  requestToV1,
  resultToV1,
  sendParamsToV1,
  sendRequestToV025,
  sendResponseToV025,
  sendResultToV1,
} from '../../../src/translate/index.js';

const profile = loadMappingProfile('a2a-0.2.5');
const message025 = { kind: 'message' as const, role: 'user' as const, messageId: 'm-1', parts: [{ kind: 'text' as const, text: 'hi' }] };
const message1 = { role: 'ROLE_USER' as const, messageId: 'm-1', parts: [{ text: 'hi' }] };

describe('send params (configuration table)', () => {
  it.each([
    [true, undefined],
    [undefined, undefined],
    [false, true],
  ])('blocking %s → returnImmediately %s (inverted, absent = blocking)', (blocking, returnImmediately) => {
    const request = sendParamsToV1({ message: message025, configuration: { acceptedOutputModes: ['text/plain'], blocking } }, profile);
    expect(request.configuration?.returnImmediately).toBe(returnImmediately);
  });

  it.each([
    [true, false],
    [false, true],
    [undefined, true],
  ])('returnImmediately %s → blocking %s', (returnImmediately, blocking) => {
    const params = sendRequestToV025({ message: message1, configuration: { returnImmediately } }, profile);
    expect(params.configuration?.blocking).toBe(blocking);
  });

  it('converts the whole configuration both ways, schemes[0] ⇄ scheme', () => {
    const v025 = {
      message: message025,
      configuration: {
        acceptedOutputModes: ['text/plain'],
        historyLength: 3,
        blocking: false,
        pushNotificationConfig: { id: 'p', url: 'https://hook', token: 'tok', authentication: { schemes: ['Bearer', 'Basic'], credentials: 'c' } },
      },
      metadata: { trace: 'x' },
    };
    const v1 = sendParamsToV1(v025, profile);
    expect(v1).toStrictEqual({
      message: message1,
      configuration: {
        acceptedOutputModes: ['text/plain'],
        historyLength: 3,
        returnImmediately: true,
        taskPushNotificationConfig: { id: 'p', url: 'https://hook', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'c' } },
      },
      metadata: { trace: 'x' },
    });
    const back = sendRequestToV025({ ...v1, tenant: 'gw-only' }, profile);
    expect(back.configuration?.pushNotificationConfig?.authentication).toStrictEqual({ schemes: ['Bearer'], credentials: 'c' });
    expect(back).not.toHaveProperty('tenant');
  });

  it('always writes acceptedOutputModes to 0.2.5 and tolerates its absence from 0.2.6 clients', () => {
    expect(sendRequestToV025({ message: message1, configuration: {} }, profile).configuration).toStrictEqual({
      acceptedOutputModes: [],
      blocking: true,
    });
    expect(sendParamsToV1({ message: message025, configuration: { blocking: true } }, profile).configuration).toStrictEqual({});
  });
});

describe('task and push-config params: the meaning of id', () => {
  it('tasks/get drops metadata (1.0 has none)', () => {
    expect(getTaskParamsToV1({ id: 'T', historyLength: 2, metadata: { a: 1 } })).toStrictEqual({ id: 'T', historyLength: 2 });
  });
  it('get: {id: T, pushNotificationConfigId: C} ⇄ {taskId: T, id: C}; a missing config id is the task id', () => {
    expect(getPushConfigParamsToV1({ id: 'T', pushNotificationConfigId: 'C' })).toStrictEqual({ taskId: 'T', id: 'C' });
    expect(getPushConfigParamsToV1({ id: 'T' })).toStrictEqual({ taskId: 'T', id: 'T' });
    expect(getPushConfigRequestToV025({ taskId: 'T', id: 'C' })).toStrictEqual({ id: 'T', pushNotificationConfigId: 'C' });
  });
  it('delete and list', () => {
    expect(deletePushConfigParamsToV1({ id: 'T', pushNotificationConfigId: 'C' })).toStrictEqual({ taskId: 'T', id: 'C' });
    expect(deletePushConfigRequestToV025({ taskId: 'T', id: 'C' })).toStrictEqual({ id: 'T', pushNotificationConfigId: 'C' });
    expect(listPushConfigsParamsToV1({ id: 'T', metadata: {} })).toStrictEqual({ taskId: 'T' });
  });
  it('set: nested ⇄ flat', () => {
    const nested = { taskId: 'T', pushNotificationConfig: { id: 'C', url: 'https://h', authentication: { schemes: ['Bearer'] } } };
    const flat = { taskId: 'T', id: 'C', url: 'https://h', authentication: { scheme: 'Bearer' } };
    expect(pushConfigToV1(nested)).toStrictEqual(flat);
    expect(pushConfigToV025(flat)).toStrictEqual(nested);
  });
});

describe('results', () => {
  it('message/send: bare ⇄ wrapped', () => {
    const task = { kind: 'task' as const, id: 't', contextId: 'c', status: { state: 'completed' as const, timestamp: '2025-01-01T00:00:00Z' } };
    const wrapped = sendResultToV1(task, profile);
    expect(wrapped).toStrictEqual({
      task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T00:00:00Z' } },
    });
    expect(sendResponseToV025(wrapped, profile)).toStrictEqual(task);
    const direct = sendResultToV1({ ...message025, role: 'agent' }, profile, { contextId: 'ctx' });
    expect(direct).toStrictEqual({ message: { role: 'ROLE_AGENT', messageId: 'm-1', parts: [{ text: 'hi' }], contextId: 'ctx' } });
  });
  it('push list: array ⇄ {configs}; delete: null ⇄ {}', () => {
    const list = [{ taskId: 'T', pushNotificationConfig: { url: 'https://h' } }];
    expect(pushConfigListToV1(list)).toStrictEqual({ configs: [{ taskId: 'T', url: 'https://h' }] });
    expect(pushConfigListToV025({ configs: [{ taskId: 'T', url: 'https://h' }], nextPageToken: 'x' })).toStrictEqual(list);
    expect(deleteResultToV1()).toStrictEqual({});
    expect(deleteResultToV025()).toBeNull();
  });
});

describe('JSON-RPC dispatch', () => {
  it('translates a 0.2.5 call to the 1.0 method and params', () => {
    expect(requestToV1('message/stream', { message: message025 }, profile)).toStrictEqual({
      method: 'SendStreamingMessage',
      params: { message: message1 },
    });
    expect(requestToV1('tasks/pushNotificationConfig/delete', { id: 'T', pushNotificationConfigId: 'C' }, profile)).toStrictEqual({
      method: 'DeleteTaskPushNotificationConfig',
      params: { taskId: 'T', id: 'C' },
    });
    expect(requestToV1('agent/getAuthenticatedExtendedCard', undefined, profile)).toStrictEqual({ method: 'GetExtendedAgentCard', params: {} });
  });

  it('rejects bad params with -32602 naming the field, and unknown methods with -32601', () => {
    const bad = () => requestToV1('message/send', { message: { ...message025, messageId: undefined } }, profile);
    expect(bad).toThrow(A2AError);
    try {
      bad();
    } catch (error) {
      expect((error as A2AError).code).toBe(-32602);
      expect((error as A2AError).violations[0]?.field).toBe('message.messageId');
    }
    expect(() => requestToV1('tasks/list', {}, profile)).toThrow(expect.objectContaining({ code: -32601 }));
    expect(() => requestToV1('SendMessage', {}, profile)).toThrow(expect.objectContaining({ code: -32601 }));
  });

  it('translates a 1.0 call for a 0.2.5 upstream; ListTasks is unsupported', () => {
    expect(requestToV025('GetTaskPushNotificationConfig', { taskId: 'T', id: 'C' }, profile)).toStrictEqual({
      method: 'tasks/pushNotificationConfig/get',
      params: { id: 'T', pushNotificationConfigId: 'C' },
    });
    expect(requestToV025('SendMessage', { message: message1 }, profile)).toStrictEqual({ method: 'message/send', params: { message: message025 } });
    expect(() => requestToV025('ListTasks', {}, profile)).toThrow(expect.objectContaining({ code: -32004 }));
  });

  it('validates a 0.2.5 upstream result and reports garbage as -32006', () => {
    expect(resultToV1('GetTask', { kind: 'task', id: 't', contextId: 'c', status: { state: 'working' } }, profile)).toStrictEqual({
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_WORKING' },
    });
    expect(resultToV1('DeleteTaskPushNotificationConfig', null, profile)).toStrictEqual({});
    expect(() => resultToV1('GetTask', { id: 't' }, profile)).toThrow(expect.objectContaining({ code: -32006 }));
  });
});
