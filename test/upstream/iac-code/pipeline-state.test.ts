/**
 * The client of iac-code's pipeline state route (src/upstream/iac-code/pipeline-state.ts): the query it
 * sends, the credentials it sends it with, and every answer it does not take as the whole journal.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipelineStateReader } from '../../../src/upstream/iac-code/pipeline-state.js';

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

describe("iac-code's pipeline state route, as the gateway reads it", () => {
  let answer: Answer = (_req, res) => res.end();
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    answer(req, res);
  });
  const dispatcher = new Agent();
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dispatcher.close();
  });
  const json =
    (status: number, body: unknown): Answer =>
    (_req, res) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const read = (timeoutMs = 0) =>
    pipelineStateReader({ url, dispatcher, headers: { authorization: 'Bearer upstream' }, timeoutMs }).eventsAfter(
      { taskId: 't 1', contextId: 'c-1' },
      12.0,
    );

  it('asks for the task after the number (an integer, as iac-code takes it), with the upstream credentials', async () => {
    answer = json(200, { snapshot: { lastSequence: 14 }, events: [{ sequence: 13 }, 'junk', { sequence: 14 }] });
    expect(await read()).toEqual([{ sequence: 13 }, { sequence: 14 }]);
    const request = seen.at(-1) as IncomingMessage;
    const asked = new URL(request.url ?? '', url);
    expect(asked.pathname).toBe('/iac-code/pipeline/state');
    expect(Object.fromEntries(asked.searchParams)).toEqual({ contextId: 'c-1', taskId: 't 1', afterSequence: '12' });
    expect(request.headers.authorization).toBe('Bearer upstream');
  });

  it('takes nothing but a 200 JSON object with an events array that does not say it was cut', async () => {
    for (const other of [
      json(404, { error: 'A2A pipeline state not found' }),
      json(500, { events: [] }),
      json(200, { snapshot: {} }),
      json(200, { events: [], truncated: true }),
      (_req: IncomingMessage, res: ServerResponse) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'),
      (req: IncomingMessage) => req.socket.destroy(),
    ]) {
      answer = other;
      expect(await read()).toBeUndefined();
    }
  });

  it('gives up at its bound when the route does not answer', async () => {
    answer = () => undefined;
    const started = Date.now();
    expect(await read(200)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
