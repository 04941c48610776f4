import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger, usesPretty, type LogLevel } from '../../src/log.js';

function capture() {
  const chunks: string[] = [];
  return { chunks, destination: { write: (chunk: string) => void chunks.push(chunk) } };
}
const json = (chunks: string[]) => chunks.flatMap((chunk) => chunk.trim().split('\n')).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('log format', () => {
  it('auto is pretty exactly on a terminal; json and pretty are what they say', () => {
    expect(usesPretty('auto', true)).toBe(true);
    expect(usesPretty('auto', false)).toBe(false);
    expect(usesPretty('json', true)).toBe(false);
    expect(usesPretty('pretty', false)).toBe(true);
  });

  it('pretty lines are readable text with the level word, not JSON, and still redact secrets', () => {
    const chunks: string[] = [];
    const destination = new Writable({ write: (chunk, _enc, done) => done(void chunks.push(String(chunk))) });
    createLogger('info', destination, 'pretty').warn({ token: 'SECRET-T', upstream: 'http://a' }, 'upstream agent card refresh failed');
    const text = chunks.join('');
    expect(text).toMatch(/WARN.*upstream agent card refresh failed/);
    expect(() => JSON.parse(text)).toThrow();
    expect(text).not.toContain('SECRET-T');
  });

  it("pretty: one line per request, the request's fields on it (README: one line per request)", async () => {
    const entries: string[] = [];
    const destination = new Writable({ write: (chunk, _enc, done) => done(void entries.push(String(chunk))) });
    const gateway = await startGateway(defaultConfig({ port: 0 }), createLogger('info', destination, 'pretty'));
    try {
      await (await fetch(`${gateway.url}/.well-known/agent-card.json`, { headers: { 'x-request-id': 'pretty-1' } })).text();
      const body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm-pretty', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      };
      await (
        await fetch(gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': 'pretty-2' },
          body: JSON.stringify(body),
        })
      ).text();
    } finally {
      await gateway.close();
    }
    const requests = entries.filter((entry) => /pretty-[12]/.test(entry));
    expect(requests).toHaveLength(2);
    for (const entry of requests) {
      expect(entry.endsWith('\n')).toBe(true);
      expect(entry.slice(0, -1)).not.toContain('\n');
    }
    expect(requests[1]).toMatch(/INFO: request \{"reqId":"pretty-2",.*"status":200,.*"method":"SendMessage"/);
  });

  it('json lines parse', () => {
    const { chunks, destination } = capture();
    createLogger('info', destination, 'json').info('hello');
    expect(json(chunks)[0]).toMatchObject({ msg: 'hello', level: 30 });
  });
});

async function gatewayLogging(level: LogLevel, config: Record<string, unknown> = {}) {
  const { chunks, destination } = capture();
  const gateway = await startGateway(defaultConfig({ port: 0, ...config }), createLogger(level, destination));
  return { gateway, lines: () => json(chunks).filter((line) => line.msg === 'request') };
}

describe('request lines', () => {
  let gw: Awaited<ReturnType<typeof gatewayLogging>>;
  beforeAll(async () => {
    gw = await gatewayLogging('info');
  });
  afterAll(async () => {
    await gw.gateway.close();
  });

  it('X-Request-Id: a sane inbound id is echoed and logged; without one a fresh id is', async () => {
    const card = `${gw.gateway.url}/.well-known/agent-card.json`;
    const given = await fetch(card, { headers: { 'x-request-id': 'probe-42' } });
    expect(given.headers.get('x-request-id')).toBe('probe-42');
    const fresh = await fetch(card);
    const id = fresh.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const insane = await fetch(card, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(insane.headers.get('x-request-id')).not.toBe('bad id with spaces');
    const ids = gw.lines().map((line) => line.reqId);
    expect(ids).toContain('probe-42');
    expect(ids).toContain(id);
  });

  it('the facade line of a new task carries taskId and contextId like the 1.0 line', async () => {
    const body = {
      jsonrpc: '2.0',
      id: '1',
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: 'm-1', parts: [{ kind: 'text', text: 'hi' }] } },
    };
    const res = await fetch(gw.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'facade-send' },
      body: JSON.stringify(body),
    });
    const { result } = (await res.json()) as { result: { id: string; contextId: string } };
    const line = gw.lines().find((l) => l.reqId === 'facade-send');
    expect(line).toMatchObject({ surface: 'v025', method: 'message/send', taskId: result.id, contextId: result.contextId });
  });
});

describe('probes of /health and /ready', () => {
  it('write their request line at debug only: at info, a probe every few seconds writes nothing, its X-Request-Id still echoed', async () => {
    for (const level of ['debug', 'info'] as const) {
      const gw = await gatewayLogging(level);
      try {
        for (const path of ['/health', '/ready']) {
          const res = await fetch(`${gw.gateway.url}${path}`, { headers: { 'x-request-id': `probe-${level}` } });
          expect(res.status, path).toBe(200);
          expect(res.headers.get('x-request-id')).toBe(`probe-${level}`);
        }
        const lines = gw.lines().filter((line) => line.reqId === `probe-${level}`);
        expect(lines.map((line) => [line.path, line.level])).toEqual(
          level === 'debug'
            ? [
                ['/health', 20],
                ['/ready', 20],
              ]
            : [],
        );
      } finally {
        await gw.gateway.close();
      }
    }
  });
});

describe('a failing /ready probe', () => {
  it('logs at debug, never at error', async () => {
    for (const level of ['debug', 'info'] as const) {
      const gw = await gatewayLogging(level, { upstream: { url: 'http://127.0.0.1:1' } });
      try {
        const res = await fetch(`${gw.gateway.url}/ready`, { headers: { 'x-request-id': 'ready-probe' } });
        expect(res.status).toBe(503);
        const lines = gw.lines().filter((line) => line.reqId === 'ready-probe');
        expect(lines.map((line) => line.level)).toEqual(level === 'debug' ? [20] : []);
      } finally {
        await gw.gateway.close();
      }
    }
  });
});
