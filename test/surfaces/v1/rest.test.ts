import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../src/model/index.js';
import { StubPort, V1, agentMessage, buildApp, parseSse, pushConfig, task, userMessage } from '../support.js';

const { app, port, log } = buildApp({ config: { 'push-notifications': true, 'max-body-bytes': 2048 } });

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await app.request(path, {
    method,
    headers: { ...V1, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.startsWith('application/json');
  return { status: response.status, headers: response.headers, body: isJson && text ? JSON.parse(text) : text };
}

describe.each([
  ['', undefined],
  ['/tenant-a', 'tenant-a'],
])('1.0 REST routes (prefix %j)', (prefix, tenant) => {
  const withTenant = (request: Record<string, unknown>) => (tenant ? { ...request, tenant } : request);

  it('POST /message:send', async () => {
    const body = { message: userMessage(), configuration: { returnImmediately: true } };
    const result = await call('POST', `${prefix}/message:send`, body, { 'content-type': 'application/a2a+json' });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('application/json');
    expect(result.body).toEqual({ task: task() });
    expect(port.last()).toMatchObject({ method: 'sendMessage', request: withTenant(body) });
    expect(port.last().ctx.surface).toBe('rest');
    expect(log()).toMatchObject({ surface: 'rest', method: 'SendMessage', taskId: 'task-1' });
  });

  it('POST /message:stream streams bare StreamResponses', async () => {
    const result = await call('POST', `${prefix}/message:stream`, { message: userMessage() });
    expect(result.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(result.body).map((frame) => JSON.parse(frame.data));
    expect(events[0]).toEqual({ task: task('task-1', { status: { state: 'TASK_STATE_SUBMITTED' } }) });
    expect(events[1].statusUpdate.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(port.last().request).toEqual(withTenant({ message: userMessage() }));
  });

  it('GET /tasks/{id}?historyLength=', async () => {
    const result = await call('GET', `${prefix}/tasks/task-9?historyLength=3`);
    expect(result.body).toEqual(task('task-9'));
    expect(port.last().request).toEqual(withTenant({ id: 'task-9', historyLength: 3 }));
  });

  it('GET /tasks/{id} with a colon and a percent-encoded id', async () => {
    await call('GET', `${prefix}/tasks/a:b`);
    expect(port.last().request).toMatchObject({ id: 'a:b' });
    await call('GET', `${prefix}/tasks/c%3Ad`);
    expect(port.last().request).toMatchObject({ id: 'c:d' });
  });

  it('GET /tasks coerces the query', async () => {
    const query =
      'contextId=ctx-1&status=TASK_STATE_WORKING&pageSize=20&pageToken=abc&historyLength=0&statusTimestampAfter=2026-01-01T00:00:00Z&includeArtifacts=true&unknown=1';
    const result = await call('GET', `${prefix}/tasks?${query}`);
    expect(result.body).toEqual({ tasks: [task()], nextPageToken: '', pageSize: 50, totalSize: 1 });
    expect(port.last().request).toEqual(
      withTenant({
        contextId: 'ctx-1',
        status: 'TASK_STATE_WORKING',
        pageSize: 20,
        pageToken: 'abc',
        historyLength: 0,
        statusTimestampAfter: '2026-01-01T00:00:00Z',
        includeArtifacts: true,
      }),
    );
  });

  it('GET /tasks?statusTimestampAfter= passes RFC 3339 on as it came and writes a printed JavaScript Date as RFC 3339', async () => {
    const precise = '2026-12-05T04:00:40.123456+05:30';
    await call('GET', `${prefix}/tasks?statusTimestampAfter=${encodeURIComponent(precise)}`);
    expect(port.last().request).toEqual(withTenant({ statusTimestampAfter: precise }));
    // What the official a2a-js 1.x client's REST transport sends for a Date (String(date)), in any zone.
    for (const printed of ['Sat Dec 05 2026 04:00:40 GMT+0000 (Coordinated Universal Time)', 'Sat Dec 05 2026 12:00:40 GMT+0800 (中国标准时间)']) {
      await call('GET', `${prefix}/tasks?statusTimestampAfter=${encodeURIComponent(printed)}`);
      expect(port.last().request).toEqual(withTenant({ statusTimestampAfter: '2026-12-05T04:00:40.000Z' }));
    }
    await call('GET', `${prefix}/tasks?statusTimestampAfter=${encodeURIComponent('Sat, 05 Dec 2026 04:00:40 GMT')}`);
    expect(port.last().request).toEqual(withTenant({ statusTimestampAfter: '2026-12-05T04:00:40.000Z' }));
    await call('GET', `${prefix}/tasks?statusTimestampAfter=`);
    expect(port.last().request).toEqual(withTenant({}));
  });

  it('POST /tasks/{id}:cancel, with and without a body', async () => {
    const result = await call('POST', `${prefix}/tasks/task-2:cancel`, { metadata: { why: 'x' } });
    expect(result.body.status.state).toBe('TASK_STATE_CANCELED');
    expect(port.last().request).toEqual(withTenant({ id: 'task-2', metadata: { why: 'x' } }));
    await call('POST', `${prefix}/tasks/a:b:cancel`);
    expect(port.last()).toMatchObject({ method: 'cancelTask', request: withTenant({ id: 'a:b' }) });
  });

  it.each(['GET', 'POST'])('%s /tasks/{id}:subscribe', async (method) => {
    const result = await call(method, `${prefix}/tasks/task-4:subscribe`);
    const events = parseSse(result.body).map((frame) => JSON.parse(frame.data));
    expect(events[0]).toEqual({ task: task('task-4', { status: { state: 'TASK_STATE_WORKING' } }) });
    expect(port.last()).toMatchObject({ method: 'subscribeToTask', request: withTenant({ id: 'task-4' }) });
  });

  it('POST /tasks/{taskId}/pushNotificationConfigs takes taskId from the path', async () => {
    const body = { taskId: 'ignored', id: 'hook-2', url: 'https://hooks.example.com/x', token: 'tok' };
    const result = await call('POST', `${prefix}/tasks/task-1/pushNotificationConfigs`, body);
    expect(result.body).toEqual({ ...withTenant(body), taskId: 'task-1' });
    expect(port.last().request).toEqual(withTenant({ ...body, taskId: 'task-1' }));
  });

  it('GET /tasks/{taskId}/pushNotificationConfigs', async () => {
    const result = await call('GET', `${prefix}/tasks/task-1/pushNotificationConfigs?pageSize=2&pageToken=p`);
    expect(result.body).toEqual({ configs: [pushConfig()] });
    expect(port.last().request).toEqual(withTenant({ taskId: 'task-1', pageSize: 2, pageToken: 'p' }));
  });

  it('GET /tasks/{taskId}/pushNotificationConfigs/{id}', async () => {
    const result = await call('GET', `${prefix}/tasks/task-1/pushNotificationConfigs/hook-1`);
    expect(result.body).toEqual(pushConfig());
    expect(port.last().request).toEqual(withTenant({ taskId: 'task-1', id: 'hook-1' }));
  });

  it('DELETE /tasks/{taskId}/pushNotificationConfigs/{id} answers {}', async () => {
    const result = await call('DELETE', `${prefix}/tasks/task-1/pushNotificationConfigs/hook-1`);
    expect(result).toMatchObject({ status: 200, body: {} });
    expect(port.last()).toMatchObject({ method: 'deleteTaskPushNotificationConfig', request: withTenant({ taskId: 'task-1', id: 'hook-1' }) });
  });

  it('GET /extendedAgentCard', async () => {
    const result = await call('GET', `${prefix}/extendedAgentCard`);
    expect(result.body.skills[0].id).toBe('extra');
    expect(result.body.supportedInterfaces[1]).toEqual({ url: 'http://localhost', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
    expect(port.last().method).toBe('getExtendedAgentCard');
  });
});

describe('REST errors', () => {
  it.each([
    ['historyLength=abc', '/tasks/t?historyLength=abc', 'historyLength'],
    ['historyLength=1.5', '/tasks/t?historyLength=1.5', 'historyLength'],
    ['historyLength=-1', '/tasks/t?historyLength=-1', 'historyLength'],
    ['pageSize=x', '/tasks?pageSize=x', 'pageSize'],
    ['pageSize=0', '/tasks?pageSize=0', 'pageSize'],
    ['includeArtifacts=yes', '/tasks?includeArtifacts=yes', 'includeArtifacts'],
    ['status=working', '/tasks?status=working', 'status'],
    ['statusTimestampAfter=soon', '/tasks?statusTimestampAfter=soon', 'statusTimestampAfter'],
    // Date.parse reads these (as 2001-01-01, 2020-01-01 and 2026-03-03): read so, the filter would list the wrong tasks.
    ['statusTimestampAfter=1', '/tasks?statusTimestampAfter=1', 'statusTimestampAfter'],
    ['statusTimestampAfter=hello 2020', '/tasks?statusTimestampAfter=hello%202020', 'statusTimestampAfter'],
    [
      'statusTimestampAfter=Tue Feb 31 …',
      `/tasks?statusTimestampAfter=${encodeURIComponent('Tue Feb 31 2026 04:00:40 GMT+0000')}`,
      'statusTimestampAfter',
    ],
    ['a bad id', '/tasks/a%20b', 'id'],
  ])('%s → 400 naming the field', async (_name, path, field) => {
    const result = await call('GET', path);
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const badRequest = result.body.error.details.find((d: any) => d['@type'].endsWith('BadRequest'));
    expect(badRequest.fieldViolations[0].field).toBe(field);
  });

  it.each([
    ['GET', '/tasks/', 'id'],
    ['GET', '/tenant-a/tasks/', 'id'],
    ['POST', '/tasks/:cancel', 'id'],
    ['GET', '/tasks/:subscribe', 'id'],
    ['GET', '/tasks//pushNotificationConfigs', 'taskId'],
    ['POST', '/tasks//pushNotificationConfigs', 'taskId'],
    ['GET', '/tasks/t/pushNotificationConfigs/', 'id'],
    ['DELETE', '/tasks/t/pushNotificationConfigs/', 'id'],
  ])('%s %s names no task or config: 400 naming %s, as any bad id, and nothing reaches the port', async (method, path, field) => {
    const before = port.calls.length;
    const result = await call(method, path, method === 'POST' ? { url: 'https://hooks.example.com/a2a' } : undefined);
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'INVALID_PARAMS' }, {}] });
    expect(result.body.error.details[1].fieldViolations).toEqual([{ field, description: expect.stringMatching(/^must be 1-128 characters/) }]);
    expect(port.calls.length).toBe(before);
  });

  it('answers 400 for a body that is not JSON, not an object, or invalid', async () => {
    expect((await call('POST', '/message:send', '{oops')).body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect((await call('POST', '/message:send', [1])).status).toBe(400);
    expect((await call('POST', '/message:send', { message: { role: 'ROLE_USER' } })).status).toBe(400);
    expect((await call('POST', '/message:send', { message: userMessage(), pad: 'x'.repeat(3000) })).status).toBe(400);
  });

  it('renders port errors as google.rpc.Status with the mapped HTTP status', async () => {
    const { app: failing } = buildApp({ port: new StubPort({ getTask: async (r) => Promise.reject(A2AError.taskNotFound(r.id)) }) });
    const response = await failing.request('/tasks/nope', { headers: V1 });
    expect(response.status).toBe(404);
    expect((await response.json()) as any).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: 'Task nope not found',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'nope' } },
        ],
      },
    });
  });

  it('answers a stream that fails before its first event with a plain REST error', async () => {
    const { app: failing } = buildApp({
      port: new StubPort({
        subscribeToTask: (r) => ({
          [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(A2AError.taskNotFound(r.id, `Task ${r.id} is not active`)) }),
        }),
      }),
    });
    const response = await failing.request('/tasks/old:subscribe', { headers: V1 });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(((await response.json()) as any).error.message).toBe('Task old is not active');
  });

  it('requires A2A-Version (400 -32009 as google.rpc.Status)', async () => {
    const response = await app.request('/tasks/t');
    expect(response.status).toBe(400);
    expect((await response.json()) as any).toMatchObject({
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: "No A2A-Version header was sent, which A2A reads as version '0.3'; this handler supports '1.0': send the header A2A-Version: 1.0.",
        details: [{ reason: 'VERSION_NOT_SUPPORTED', metadata: { version: '0.3' } }],
      },
    });
    expect((await app.request('/tasks/t?A2A-Version=1.0')).status).toBe(200);
  });

  it('answers 405 with Allow for a known path and a wrong method, 404 for unknown paths', async () => {
    const wrong = await call('DELETE', '/tasks/t');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    // Any method, PUT included, reaches the binding: the path is a route, so 405 rather than the app's 404.
    expect((await call('PUT', '/tasks/t')).status).toBe(405);
    expect((await call('GET', '/tasks/t/unknown')).status).toBe(404);
    expect((await call('GET', '/a/b/tasks')).status).toBe(404);
  });

  it('answers 400 -32003 for push routes while push notifications are off', async () => {
    const { app: noPush } = buildApp();
    const response = await noPush.request('/tasks/t/pushNotificationConfigs', { headers: V1 });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.details[0].reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
  });
});

describe('REST message result', () => {
  it('returns {message} as the port answers', async () => {
    const { app: direct } = buildApp({ port: new StubPort({ sendMessage: async () => ({ message: agentMessage('hi') }) }) });
    const response = await direct.request('/message:send', { method: 'POST', headers: V1, body: JSON.stringify({ message: userMessage() }) });
    expect((await response.json()) as any).toEqual({ message: agentMessage('hi') });
  });
});
