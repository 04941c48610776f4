/**
 * The 1.0 client over HTTP+JSON against a scripted server, for what the real a2a-js server
 * (test/e2e/upstreams/v1-rest-agent.test.ts) does not show: the exact routes, tenants and query
 * strings it writes, empty answers, and the error bodies and broken answers it must turn into errors.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { ErrorCode } from '../../../src/model/index.js';
import { createV1Upstream, type V1Upstream } from '../../../src/upstream/v1/client.js';
import { collect } from '../../support/collect.js';
import { rejection } from '../../support/rejection.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { closeAll, ctx, open } from '../support.js';

afterEach(closeAll);

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = (seen: Seen, res: ServerResponse) => void;

const json =
  (status: number, body: unknown): Answer =>
  (_seen, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

const task = (id: string, state = 'TASK_STATE_COMPLETED') => ({ id, contextId: 'c-1', status: { state } });

/** A server whose card lists one HTTP+JSON interface at /rest; `answer` decides every other request. */
async function setup(answer: Answer): Promise<{ seen: Seen[]; upstream: V1Upstream }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/.well-known/agent-card.json') {
        const { port } = server.address() as AddressInfo;
        const card = {
          name: 'rest-only',
          description: 'an agent with one HTTP+JSON interface',
          version: '1.0.0',
          supportedInterfaces: [{ url: `http://127.0.0.1:${port}/rest/`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
          capabilities: { streaming: true },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
        return;
      }
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(entry);
      answer(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  const { port } = server.address() as AddressInfo;
  const upstream = createV1Upstream({
    baseUrl: `http://127.0.0.1:${port}`,
    config: UpstreamConfig.parse({ auth: { token: 'up-secret' } }),
    binding: 'HTTP+JSON',
  });
  open.push(upstream);
  return { seen, upstream };
}

describe('the 1.0 HTTP+JSON client', () => {
  it('writes each route below the interface URL, under the tenant, with ids and query values encoded', async () => {
    const { seen, upstream } = await setup((entry, res) => {
      if (entry.method === 'DELETE') return void res.writeHead(204).end();
      if (entry.url.includes('pushNotificationConfigs')) {
        const config = { id: 'h.1', taskId: 'a/b c', url: 'https://hooks.example.com/x' };
        return json(200, entry.method === 'GET' && !entry.url.includes('/h.1') ? { configs: [config] } : config)(entry, res);
      }
      if (entry.url.startsWith('/rest/t1/tasks?')) return json(200, { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 })(entry, res);
      return json(200, task('a/b c'))(entry, res);
    });
    await upstream.getTask({ id: 'a/b c', historyLength: 2 }, ctx());
    await upstream.listTasks({ tenant: 't1', contextId: 'c 1', pageSize: 5, includeArtifacts: true }, ctx());
    await upstream.cancelTask({ id: 'a/b c', metadata: { why: 'done' } }, ctx());
    await upstream.createTaskPushNotificationConfig({ taskId: 'a/b c', id: 'h.1', url: 'https://hooks.example.com/x' }, ctx());
    await upstream.getTaskPushNotificationConfig({ taskId: 'a/b c', id: 'h.1' }, ctx());
    await upstream.listTaskPushNotificationConfigs({ taskId: 'a/b c', pageSize: 3 }, ctx());
    await upstream.deleteTaskPushNotificationConfig({ taskId: 'a/b c', id: 'h.1' }, ctx());

    expect(seen.map((entry) => `${entry.method} ${entry.url}`)).toEqual([
      'GET /rest/tasks/a%2Fb%20c?historyLength=2',
      'GET /rest/t1/tasks?contextId=c+1&pageSize=5&includeArtifacts=true',
      'POST /rest/tasks/a%2Fb%20c:cancel',
      'POST /rest/tasks/a%2Fb%20c/pushNotificationConfigs',
      'GET /rest/tasks/a%2Fb%20c/pushNotificationConfigs/h.1',
      'GET /rest/tasks/a%2Fb%20c/pushNotificationConfigs?pageSize=3',
      'DELETE /rest/tasks/a%2Fb%20c/pushNotificationConfigs/h.1',
    ]);
    expect(JSON.parse(seen[2]!.body)).toEqual({ metadata: { why: 'done' } });
    for (const entry of seen) expect(entry.headers).toMatchObject({ 'a2a-version': '1.0', authorization: 'Bearer up-secret' });
  });

  it('sends SendMessage as the JSON body and reads both answers; requested extensions go in A2A-Extensions', async () => {
    const { seen, upstream } = await setup(json(200, { message: { messageId: 'a-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }));
    const params = sendMessageParams('hello');
    const answer = await upstream.sendMessage(params, ctx({ extensions: ['urn:x:one'] }));
    expect(answer).toMatchObject({ message: { parts: [{ text: 'hi' }] } });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/rest/message:send', headers: { 'a2a-extensions': 'urn:x:one' } });
    expect(JSON.parse(seen[0]!.body)).toEqual(params);
  });

  it("turns google.rpc.Status bodies into the agent's A2A errors, its secrets scrubbed", async () => {
    const { upstream } = await setup(
      json(404, {
        error: {
          code: 404,
          status: 'NOT_FOUND',
          message: 'Task t-9 not found (token up-secret)',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
        },
      }),
    );
    const error = await rejection(upstream.getTask({ id: 't-9' }, ctx()));
    expect(error.code).toBe(ErrorCode.TaskNotFound);
    expect(error.message).not.toContain('up-secret');
  });

  it('a JSON-RPC-style error body from a 1.0 agent is read with the 1.0 codes', async () => {
    const { upstream } = await setup(json(400, { code: -32009, message: 'A2A version 0.3 is not supported' }));
    const error = await rejection(upstream.cancelTask({ id: 't-1' }, ctx()));
    expect([error.code, error.message]).toEqual([ErrorCode.VersionNotSupported, 'A2A version 0.3 is not supported']);
  });

  it('a bare 404 on a task route is TaskNotFound; an answer that is not a Task is an invalid agent response', async () => {
    const notFound = await setup((_entry, res) => void res.writeHead(404).end());
    expect((await rejection(notFound.upstream.getTask({ id: 't-1' }, ctx()))).code).toBe(ErrorCode.TaskNotFound);
    const broken = await setup(json(200, { id: 42 }));
    expect((await rejection(broken.upstream.getTask({ id: 't-1' }, ctx()))).code).toBe(ErrorCode.InvalidAgentResponse);
    const notJson = await setup((_entry, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('<html>'));
    expect((await rejection(notJson.upstream.getTask({ id: 't-1' }, ctx()))).code).toBe(ErrorCode.InvalidAgentResponse);
  });

  it('streams: each SSE frame a checked event; SubscribeToTask is POST; an `event: error` frame is thrown', async () => {
    const { seen, upstream } = await setup((entry, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ task: task('t-1', 'TASK_STATE_WORKING') })}\n\n`);
      if (entry.url.endsWith(':subscribe')) {
        const failure = { error: { code: 500, status: 'INTERNAL', message: 'executor crashed', details: [] } };
        res.end(`event: error\ndata: ${JSON.stringify(failure)}\n\n`);
        return;
      }
      res.end(`data: ${JSON.stringify({ statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } })}\n\n`);
    });
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('go'), ctx()));
    expect(events.map((event) => Object.keys(event)[0])).toEqual(['task', 'statusUpdate']);
    const subscribed: unknown[] = [];
    const failed = await rejection(
      (async () => {
        for await (const event of upstream.subscribeToTask({ id: 't-1' }, ctx())) subscribed.push(event);
      })(),
    );
    expect(subscribed).toHaveLength(1);
    expect(failed.message).toContain('executor crashed');
    expect(seen.map((entry) => `${entry.method} ${entry.url}`)).toEqual(['POST /rest/message:stream', 'POST /rest/tasks/t-1:subscribe']);
  });
});
