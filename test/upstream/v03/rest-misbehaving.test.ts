/**
 * createV03RestUpstream against scripted 0.3 HTTP+JSON agents that misbehave: error bodies of every
 * shape, silence, answers that are not JSON or not a task, and broken streams.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { ErrorCode } from '../../../src/model/index.js';
import { createV03RestUpstream, type V03RestUpstream } from '../../../src/upstream/v03/rest-client.js';
import { cardFetched, closeAll, ctx, open, outline } from '../support.js';
import { collect } from '../../support/collect.js';
import { rejection } from '../../support/rejection.js';
import { sendMessageParams } from '../../support/v1-message.js';

afterEach(closeAll);

describe('createV03RestUpstream against misbehaving agents', () => {
  type Handler = (path: string, res: ServerResponse) => void;

  async function scripted(handler: Handler, config: Record<string, unknown> = {}): Promise<V03RestUpstream> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        if (path === '/.well-known/agent-card.json') {
          const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              protocolVersion: '0.3.0',
              name: 'x',
              description: 'x',
              url,
              preferredTransport: 'HTTP+JSON',
              version: '1',
              capabilities: {},
              defaultInputModes: [],
              defaultOutputModes: [],
              skills: [],
            }),
          );
          return;
        }
        handler(path, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    });
    const upstream = createV03RestUpstream({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      config: UpstreamConfig.parse({ auth: { token: 'tok-123456' }, ...config }),
    });
    open.push(upstream);
    return upstream;
  }

  const reply =
    (status: number, body: string, type = 'application/json') =>
    (_path: string, res: ServerResponse) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };

  it.each([
    [
      'a google.rpc.Status with ErrorInfo',
      404,
      JSON.stringify({
        error: {
          code: 404,
          status: 'NOT_FOUND',
          message: 'gone',
          details: [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 't' } },
          ],
        },
      }),
      ErrorCode.TaskNotFound,
      'gone',
    ],
    [
      'a 500 with a traceback and the token',
      500,
      JSON.stringify({ message: 'boom at /srv/app/agent.py with Bearer tok-123456\nTraceback (most recent call last):\n  File "x"' }),
      ErrorCode.Internal,
      'boom at [path] with Bearer [redacted]',
    ],
    ['a plain-text 502', 502, 'Bad Gateway', ErrorCode.Internal, 'The upstream agent answered HTTP 502'],
    [
      'RFC 9457 problem details on 400',
      400,
      JSON.stringify({ type: 'about:blank', title: 'Bad Request', detail: 'message.content is required' }),
      ErrorCode.InvalidParams,
      'message.content is required',
    ],
    // The gateway's credentials refused: no caller can fix that, and the operator's log reads why (credentialsRefused).
    ['a 401', 401, '{}', ErrorCode.Internal, 'Upstream agent is unavailable'],
  ] as const)('GetTask: %s', async (_name, status, body, code, message) => {
    const upstream = await scripted(reply(status, body));
    const error = await rejection(upstream.getTask({ id: 't' }, ctx()));
    expect([error.code, error.message]).toEqual([code, message]);
  });

  it('a unary call is bounded by request-timeout-ms', async () => {
    const upstream = await scripted(() => undefined, { 'request-timeout-ms': 100 });
    // The card first: on a loaded host its fetch alone may take the call's 100 ms, which is another failure.
    await cardFetched(upstream);
    const error = await rejection(upstream.getTask({ id: 't' }, ctx()));
    expect([error.code, error.message]).toEqual([ErrorCode.Internal, 'Upstream agent timed out']);
  });

  it('a 2xx that is not JSON, or not a task, is -32006', async () => {
    const upstream = await scripted(reply(200, '<html>'));
    expect((await rejection(upstream.getTask({ id: 't' }, ctx()))).code).toBe(ErrorCode.InvalidAgentResponse);
    const other = await scripted(
      reply(200, JSON.stringify({ id: 't', status: { state: 'TASK_STATE_WORKING' }, artifacts: [{ artifactId: 'a', parts: [{}] }] })),
    );
    const error = await rejection(other.getTask({ id: 't' }, ctx()));
    expect(error.code).toBe(ErrorCode.InvalidAgentResponse);
    expect(error.message).toContain('artifacts.0.parts');
  });

  it('a stream: an `event: error` frame ends it with the agent’s error; an error before it is mapped too', async () => {
    const upstream = await scripted((_path, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } })}\n\n`);
      res.end(`event: error\ndata: ${JSON.stringify({ code: -32603, message: 'agent crashed' })}\n\n`);
    });
    const events: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of upstream.sendStreamingMessage(sendMessageParams('x'), ctx())) events.push(outline(event));
      })(),
    );
    expect(events).toEqual(['task:TASK_STATE_WORKING']);
    expect([error.code, error.message]).toEqual([ErrorCode.Internal, 'agent crashed']);

    const refusing = await scripted(reply(415, JSON.stringify({ message: 'text/plain only' })));
    const refused = await rejection(collect(refusing.sendStreamingMessage(sendMessageParams('x'), ctx())));
    expect([refused.code, refused.message]).toEqual([ErrorCode.ContentTypeNotSupported, 'text/plain only']);
  });

  it('a stream answered as one JSON message (no SSE) is that message, and the stream ends', async () => {
    const upstream = await scripted(reply(200, JSON.stringify({ msg: { messageId: 'm', role: 'ROLE_AGENT', content: [{ text: 'hi' }] } })));
    const events = await collect(upstream.sendStreamingMessage(sendMessageParams('x', { contextId: 'c-5' }), ctx()));
    expect(events).toEqual([{ message: { messageId: 'm', role: 'ROLE_AGENT', contextId: 'c-5', parts: [{ text: 'hi' }] } }]);
  });
});
