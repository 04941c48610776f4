import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/model/index.js';
import { StubPort, V1, agentMessage, buildApp, parseSse, pushConfig, rpc, task, userMessage } from '../support.js';

const send = { message: userMessage() };

describe('1.0 JSON-RPC methods', () => {
  const { app, port, log } = buildApp({ config: { 'push-notifications': true } });

  it('SendMessage returns {task} from the port and passes the request through', async () => {
    const params = { message: userMessage({ contextId: 'ctx-9', metadata: { iac_code: { cwd: '/w' } } }), configuration: { historyLength: 2 } };
    const { status, body } = await rpc(app, 'SendMessage', params);
    expect(status).toBe(200);
    expect(body).toEqual({ jsonrpc: '2.0', id: 'r1', result: { task: task() } });
    expect(port.last()).toMatchObject({ method: 'sendMessage', request: params });
    expect(port.last().ctx).toMatchObject({ principal: 'a2a-1.0:anonymous', surface: 'jsonrpc' });
    expect(log()).toMatchObject({ surface: 'jsonrpc', method: 'SendMessage', contextId: 'ctx-1', taskId: 'task-1' });
  });

  it('SendMessage returns {message} when the port answers with a message', async () => {
    const { app: other } = buildApp({ port: new StubPort({ sendMessage: async () => ({ message: agentMessage('hi') }) }) });
    expect((await rpc(other, 'SendMessage', send)).body.result).toEqual({ message: agentMessage('hi') });
  });

  it('GetTask', async () => {
    const { body } = await rpc(app, 'GetTask', { id: 'task-7', historyLength: 0 }, { id: 12 });
    expect(body).toEqual({ jsonrpc: '2.0', id: 12, result: task('task-7') });
    expect(port.last().request).toEqual({ id: 'task-7', historyLength: 0 });
  });

  it('ListTasks', async () => {
    const params = { contextId: 'ctx-1', status: 'TASK_STATE_WORKING', pageSize: 20, includeArtifacts: false };
    const { body } = await rpc(app, 'ListTasks', params);
    expect(body.result).toEqual({ tasks: [task()], nextPageToken: '', pageSize: 50, totalSize: 1 });
    expect(port.last().request).toEqual(params);
  });

  it('ListTasks without params', async () => {
    expect((await rpc(app, 'ListTasks')).body.result.totalSize).toBe(1);
  });

  it('CancelTask', async () => {
    const { body } = await rpc(app, 'CancelTask', { id: 'task-2' });
    expect(body.result).toEqual(task('task-2', { status: { state: 'TASK_STATE_CANCELED' } }));
  });

  it('CreateTaskPushNotificationConfig returns the stored object', async () => {
    const params = {
      taskId: 'task-1',
      id: 'webhook-1',
      url: 'https://hooks.example.com/a2a',
      token: 't',
      authentication: { scheme: 'bearer', credentials: 'c' },
    };
    expect((await rpc(app, 'CreateTaskPushNotificationConfig', params)).body.result).toEqual(params);
  });

  it('GetTaskPushNotificationConfig', async () => {
    const { body } = await rpc(app, 'GetTaskPushNotificationConfig', { taskId: 'task-1', id: 'hook-1' });
    expect(body.result).toEqual(pushConfig());
  });

  it('ListTaskPushNotificationConfigs', async () => {
    const { body } = await rpc(app, 'ListTaskPushNotificationConfigs', { taskId: 'task-1', pageSize: 5 });
    expect(body.result).toEqual({ configs: [pushConfig()] });
    expect(port.last().request).toEqual({ taskId: 'task-1', pageSize: 5 });
  });

  it('DeleteTaskPushNotificationConfig returns null', async () => {
    const { body } = await rpc(app, 'DeleteTaskPushNotificationConfig', { taskId: 'task-1', id: 'hook-1' });
    expect(body).toEqual({ jsonrpc: '2.0', id: 'r1', result: null });
    expect(port.last().method).toBe('deleteTaskPushNotificationConfig');
  });

  it('GetExtendedAgentCard returns the upstream extended card rewritten for the gateway', async () => {
    const { body } = await rpc(app, 'GetExtendedAgentCard', {});
    expect(body.result.skills).toEqual([{ id: 'extra', name: 'Extra', description: 'd', tags: ['t'] }]);
    expect(body.result.supportedInterfaces).toEqual([
      { url: 'http://localhost/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://localhost', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(body.result.signatures).toBeUndefined();
    expect(body.result.securitySchemes).toBeUndefined();
    // Like iac-code, the extended card has no legacy 0.3 top-level fields.
    expect(body.result.url).toBeUndefined();
    expect(body.result.additionalInterfaces).toBeUndefined();
  });

  it('SendStreamingMessage streams one JSON-RPC frame per event', async () => {
    const response = await app.request('/', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 'st', method: 'SendStreamingMessage', params: send }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const frames = parseSse(await response.text());
    expect(frames.map((frame) => JSON.parse(frame.data))).toEqual([
      { jsonrpc: '2.0', id: 'st', result: { task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) } },
      {
        jsonrpc: '2.0',
        id: 'st',
        result: {
          statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agentMessage('done') } },
        },
      },
    ]);
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
  });

  it('SubscribeToTask streams the task snapshot first', async () => {
    const response = await app.request('/', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SubscribeToTask', params: { id: 'task-5' } }),
    });
    const frames = parseSse(await response.text()).map((frame) => JSON.parse(frame.data));
    expect(frames[0]).toEqual({ jsonrpc: '2.0', id: 3, result: { task: task('task-5', { status: { state: 'TASK_STATE_WORKING' } }) } });
    expect(frames).toHaveLength(2);
    expect(port.last()).toMatchObject({ method: 'subscribeToTask', request: { id: 'task-5' } });
  });

  it('passes A2A-Extensions to the port', async () => {
    await rpc(app, 'GetTask', { id: 't' }, { headers: { 'A2A-Extensions': 'urn:a:v1, urn:b:v2,' } });
    expect(port.last().ctx.extensions).toEqual(['urn:a:v1', 'urn:b:v2']);
  });
});

describe('A2A-Version on the JSON-RPC dialect', () => {
  const { app } = buildApp();
  const versionError = (version: string, message = `A2A version '${version}' is not supported by this handler. Expected version '1.0'.`) => ({
    code: -32009,
    message,
    data: [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: { version } },
    ],
  });

  it.each(['1.0', '1.7', '1.0.0', ' 1.0 '])('accepts %j', async (version) => {
    expect((await rpc(app, 'GetTask', { id: 't' }, { headers: { 'A2A-Version': version } })).body.result.id).toBe('t');
  });

  it('says a missing version was missing, read as 0.3, and what to send', async () => {
    const { body } = await rpc(app, 'GetTask', { id: 't' }, { headers: { 'A2A-Version': '' } });
    expect(body.error).toEqual(
      versionError(
        '0.3',
        "No A2A-Version header was sent, which A2A reads as version '0.3'; this handler supports '1.0': send the header A2A-Version: 1.0.",
      ),
    );
  });

  it.each([
    ['0.3', '0.3', '0.3'],
    ['2.0', '2.0', '2.0'],
    ['garbage', 'latest', 'latest'],
  ])('rejects %s with -32009', async (_name, header, reported) => {
    const { status, body } = await rpc(app, 'GetTask', { id: 't' }, { headers: { 'A2A-Version': header } });
    expect(status).toBe(200);
    expect(body.error).toEqual(versionError(reported));
  });

  it('accepts the version as a query parameter', async () => {
    const response = await app.request('/?A2A-Version=1.0', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } }),
    });
    expect(((await response.json()) as any).result.id).toBe('t');
  });

  it('accepts a missing version with lenient-version, but still rejects a wrong one', async () => {
    const { app: lenient } = buildApp({ config: { 'lenient-version': true } });
    expect((await rpc(lenient, 'GetTask', { id: 't' }, { headers: { 'A2A-Version': '' } })).body.result.id).toBe('t');
    expect((await rpc(lenient, 'GetTask', { id: 't' }, { headers: { 'A2A-Version': '0.3' } })).body.error.code).toBe(-32009);
  });

  it('answers -32601 for an unknown PascalCase method regardless of the version', async () => {
    const { body } = await rpc(app, 'DoSomething', {}, { headers: { 'A2A-Version': '' } });
    expect(body.error).toEqual({ code: -32601, message: 'Method not found' });
  });
});

describe('params validation', () => {
  const { app, port } = buildApp({ config: { 'push-notifications': true } });

  const violation = (body: any) => body.error.data.find((detail: any) => detail['@type'].endsWith('BadRequest')).fieldViolations;

  it('names the missing field with ErrorInfo and BadRequest details', async () => {
    const calls = port.calls.length;
    const { status, body } = await rpc(app, 'SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    expect(status).toBe(200);
    expect(body.error.code).toBe(-32602);
    expect(body.error.data[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS' });
    expect(violation(body).map((v: any) => v.field)).toEqual(['message.messageId']);
    expect(port.calls.length).toBe(calls);
  });

  it.each([
    ['empty parts', { message: { ...userMessage(), parts: [] } }, 'message.parts'],
    ['a 0.x role', { message: { ...userMessage(), role: 'user' } }, 'message.role'],
    ['a 0.x kind-only part', { message: { ...userMessage(), parts: [{ kind: 'text' }] } }, 'message.parts.0'],
    ['params as an array', [1, 2], '(root)'],
  ])('rejects %s', async (_name, params, field) => {
    const { body } = await rpc(app, 'SendMessage', params);
    expect(body.error.code).toBe(-32602);
    expect(violation(body)[0].field).toBe(field);
  });

  it.each([
    ['GetTask', { id: 'a b' }, 'id'],
    ['GetTask', { id: '' }, 'id'],
    ['GetTask', { id: 'x'.repeat(129) }, 'id'],
    ['GetTask', { id: 'a/b' }, 'id'],
    ['GetTask', {}, 'id'],
    ['CancelTask', { id: 'ü' }, 'id'],
    ['SubscribeToTask', { id: 'a#b' }, 'id'],
    ['ListTasks', { contextId: 'bad id' }, 'contextId'],
    ['SendMessage', { message: userMessage({ taskId: 'bad/id' }) }, 'message.taskId'],
    ['SendMessage', { message: userMessage({ contextId: 'x'.repeat(129) }) }, 'message.contextId'],
    ['GetTaskPushNotificationConfig', { taskId: 'ok', id: 'not ok' }, 'id'],
    ['CreateTaskPushNotificationConfig', { taskId: 'no way', url: 'https://h.example' }, 'taskId'],
  ])('%s enforces the id rule (%j)', async (method, params, field) => {
    const { body } = await rpc(app, method, params);
    expect(body.error.code).toBe(-32602);
    expect(violation(body)[0].field).toBe(field);
  });

  it('accepts ids at the edge of the rule', async () => {
    const id = `A-z_0.9:${'x'.repeat(120)}`;
    expect((await rpc(app, 'GetTask', { id })).body.result.id).toBe(id);
  });

  it('rejects a negative historyLength and a page size over 100', async () => {
    expect((await rpc(app, 'GetTask', { id: 't', historyLength: -1 })).body.error.message).toContain('history length must be non-negative');
    expect((await rpc(app, 'ListTasks', { pageSize: 101 })).body.error.message).toContain('maximum page size is 100');
  });

  it('says a fractional historyLength or page size must be an integer (zod\'s own words: "expected int, received number")', async () => {
    expect((await rpc(app, 'GetTask', { id: 't', historyLength: 1.5 })).body.error.message).toBe('Invalid params: historyLength: must be an integer');
    expect((await rpc(app, 'ListTasks', { pageSize: 2.5 })).body.error.message).toBe('Invalid params: pageSize: must be an integer');
  });
});

describe('errors from the port', () => {
  it('renders an A2AError with its ErrorInfo', async () => {
    const { app, log } = buildApp({ port: new StubPort({ getTask: async (r) => Promise.reject(A2AError.taskNotFound(r.id)) }) });
    const { status, body } = await rpc(app, 'GetTask', { id: 'nope' });
    expect(status).toBe(200);
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: 'r1',
      error: {
        code: -32001,
        message: 'Task nope not found',
        data: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'nope' } },
        ],
      },
    });
    expect(log()).toMatchObject({ errorCode: -32001, taskId: 'nope' });
  });

  it('hides an unexpected error behind -32603', async () => {
    const { app } = buildApp({ port: new StubPort({ cancelTask: async () => Promise.reject(new Error('ECONNREFUSED /srv/secret')) }) });
    expect((await rpc(app, 'CancelTask', { id: 't' })).body.error).toEqual({ code: -32603, message: 'Internal error' });
  });

  it('answers -32003 for push methods while push notifications are off', async () => {
    const { app, port } = buildApp();
    for (const method of [
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
    ]) {
      const { body } = await rpc(app, method, { taskId: 't', id: 'h', url: 'https://h.example' });
      expect(body.error).toMatchObject({ code: -32003, message: 'Push notifications are not supported by the agent' });
    }
    expect(port.calls).toHaveLength(0);
  });
});
