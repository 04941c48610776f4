import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger, requestLogger, type LogLevel } from '../src/log.js';
import { noteFacadeStreamShown } from '../src/observability/facade-answer-log.js';
import type { GatewayEnv } from '../src/surfaces/shared/env.js';
import { sseResponse } from '../src/surfaces/shared/sse.js';
import type { SseFrame } from '../src/surfaces/shared/sse-frames.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = { write: (chunk: string) => void lines.push(JSON.parse(chunk) as Record<string, unknown>) };
  return { lines, destination };
}

function appWithLogger(level: LogLevel = 'info') {
  const { lines, destination } = capture();
  const app = new Hono<GatewayEnv>();
  app.use('*', requestLogger(createLogger(level, destination)));
  app.post('/', (c) => {
    Object.assign(c.var.logFields, { surface: 'jsonrpc', method: 'SendMessage', taskId: 't-1', contextId: 'c-1' });
    c.var.logger.debug('below the level: not written');
    c.var.logger.warn('handler warning');
    return c.json({ ok: true });
  });
  app.get('/stream', (c) => {
    c.var.logFields.surface = 'v025';
    const body = new ReadableStream({ start: (controller) => controller.close() });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  });
  // A facade stream as the facade writes one: its failure rendered as events, the stream ended normally, and at its
  // end the state its user was shown and the reply's words noted for the log (v025/stream.ts).
  app.get('/facade-stream/:state', (c) => {
    Object.assign(c.var.logFields, { surface: 'v025', method: 'message/stream' });
    const state = c.req.param('state');
    const frames: SseFrame[] = [
      {
        data: JSON.stringify({
          result: { kind: 'artifact-update', artifact: { artifactId: 'r', parts: [{ kind: 'text', text: 'Upstream agent ' }] } },
        }),
        shows: { kind: 'artifact-update' },
      },
      {
        data: JSON.stringify({
          result: { kind: 'artifact-update', append: true, artifact: { artifactId: 'r', parts: [{ kind: 'text', text: 'is unavailable' }] } },
        }),
        shows: { kind: 'artifact-update' },
      },
      { data: JSON.stringify({ result: { kind: 'status-update', status: { state }, final: true } }), shows: { kind: 'status-update', state } },
    ];
    return sseResponse(
      (async function* () {
        yield* frames;
        noteFacadeStreamShown(c.get('logFields'), { state }, () => 'Upstream agent is unavailable');
      })(),
      { keepaliveMs: 0, onError: () => undefined },
    );
  });
  app.get('/boom', () => {
    throw new Error('kaput');
  });
  app.onError((_error, c) => c.json({ error: 'Internal' }, 500));
  return { app, lines };
}

describe('createLogger', () => {
  it('redacts secrets at any of the first levels and in request headers', () => {
    const { lines, destination } = capture();
    const logger = createLogger('info', destination);
    logger.info({
      token: 'T0',
      config: { auth: { token: 'T1', 'api-key': 'K1', 'basic-password': 'P1' }, upstream: { auth: { token: 'T2' } } },
      req: { headers: { authorization: 'Bearer X', 'x-api-key': 'K2', host: 'example' } },
    });
    const text = JSON.stringify(lines[0]);
    for (const secret of ['T0', 'T1', 'K1', 'P1', 'T2', 'Bearer X', 'K2']) expect(text).not.toContain(`"${secret}"`);
    expect(text).toContain('"host":"example"');
  });

  it("keeps a failed Redis command's arguments out of an error (ioredis: an AUTH's are the password)", () => {
    const { lines, destination } = capture();
    const logger = createLogger('debug', destination);
    // The shape ioredis gives a refused AUTH (DataHandler.returnError), and an error that carries another.
    const refused = Object.assign(new Error('WRONGPASS invalid username-password pair'), {
      command: { name: 'auth', args: ['default', 'redis-pw-1'] },
    });
    const wrapped = Object.assign(new Error('round failed'), { previous: refused, errors: [refused], options: { password: 'redis-pw-2' } });
    logger.warn({ err: refused }, 'redis error');
    logger.debug({ err: wrapped }, 'wrapped');
    logger.warn(refused, 'as the object');
    const text = lines.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of ['redis-pw-1', 'redis-pw-2']) expect(text).not.toContain(secret);
    expect(lines[0]?.err).toMatchObject({ message: 'WRONGPASS invalid username-password pair', command: { name: 'auth' } });
    expect(lines[1]?.err).toMatchObject({ message: 'round failed', previous: { message: 'WRONGPASS invalid username-password pair' } });
  });

  it('keeps credentials written into a URL out of the log: upstream, endpoint, url and error texts', () => {
    const { lines, destination } = capture();
    const logger = createLogger('debug', destination);
    logger.info({ upstream: 'http://user:up-pw-1@agent:8080/a2a?api_key=up-key-2&v=1' }, 'upstream protocol');
    logger.info({ endpoint: 'https://otel:otel-pw-3@collector/v1/traces' }, 'exporting traces');
    logger.info({ url: 'redis://:redis-pw-4@redis:6379' }, 'listening');
    logger.warn({ err: 'cannot reach https://u:err-pw-5@agent/x' }, 'error as text');
    logger.warn({ err: new Error('Invalid URL redis://:err-pw-6@host') }, 'error');
    const text = lines.map((line) => JSON.stringify(line)).join('\n');
    for (const secret of ['up-pw-1', 'up-key-2', 'otel-pw-3', 'redis-pw-4', 'err-pw-5', 'err-pw-6']) expect(text).not.toContain(secret);
    expect(lines[0]?.upstream).toBe('http://[redacted]@agent:8080/a2a?api_key=[redacted]&v=1');
  });

  it('honours the level', () => {
    const { lines, destination } = capture();
    const logger = createLogger('warn', destination);
    logger.info('quiet');
    logger.warn('loud');
    expect(lines.map((l) => l.msg)).toEqual(['loud']);
  });
});

describe('requestLogger', () => {
  it('writes one line per request with the handler fields, without query string or headers', async () => {
    const { app, lines } = appWithLogger();
    const res = await app.request('/?api_key=leak', {
      method: 'POST',
      headers: { authorization: 'Bearer secret-token', 'x-request-id': 'req-42' },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(lines.map((l) => l.msg)).toEqual(['handler warning', 'request']);
    expect(lines[0]!.reqId).toBe('req-42');
    const line = lines[1]!;
    expect(line).toMatchObject({
      msg: 'request',
      reqId: 'req-42',
      httpMethod: 'POST',
      path: '/',
      status: 200,
      surface: 'jsonrpc',
      method: 'SendMessage',
      taskId: 't-1',
      contextId: 'c-1',
    });
    expect(typeof line.durationMs).toBe('number');
    const text = JSON.stringify(line);
    expect(text).not.toContain('leak');
    expect(text).not.toContain('secret-token');
  });

  it('logs a stream when its headers go out, and generates a request id', async () => {
    const { app, lines } = appWithLogger();
    const res = await app.request('/stream', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 200, stream: true, surface: 'v025' });
    expect(lines[0]!.reqId).toMatch(/^[0-9a-f-]{36}$/);
    await res.body?.cancel();
  });

  it('logs a failed request at error level with the error', async () => {
    const { app, lines } = appWithLogger();
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, status: 500, path: '/boom' });
    expect((lines[0]!.err as { message: string }).message).toBe('kaput');
  });

  it('above info: no request line for a success, handlers still log, a 5xx is still logged at error', async () => {
    const { app, lines } = appWithLogger('warn');
    const ok = await app.request('/', { method: 'POST', body: '{}' });
    expect(ok.status).toBe(200);
    expect(lines.map((l) => l.msg)).toEqual(['handler warning']);
    const failed = await app.request('/boom', { headers: { 'x-request-id': 'req-7' } });
    expect(failed.status).toBe(500);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 50, msg: 'request', reqId: 'req-7', status: 500, path: '/boom' });
  });

  it('a facade stream that showed its turn failed: stream ended error, with the words its user read, at warn also above info', async () => {
    for (const level of ['info', 'warn'] as const) {
      const { app, lines } = appWithLogger(level);
      await (await app.request('/facade-stream/failed', { headers: { 'x-request-id': `req-${level}` } })).text();
      await (await app.request('/facade-stream/completed')).text();
      const ends = lines.filter((line) => line.msg === 'stream ended');
      const failed = { level: 40, reqId: `req-${level}`, ended: 'error', state: 'failed', cause: 'Upstream agent is unavailable', events: 3 };
      // At info the completed stream's line too, at info; above info only the failed one's.
      expect(ends).toMatchObject(level === 'info' ? [failed, { level: 30, ended: 'completed', state: 'completed' }] : [failed]);
    }
  });

  it('silent: handlers get a logger, nothing is written', async () => {
    const { app, lines } = appWithLogger('silent');
    expect((await app.request('/', { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await app.request('/boom')).status).toBe(500);
    expect(lines).toEqual([]);
  });
});
