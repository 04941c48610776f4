/**
 * The official a2a-js 1.x client → the gateway → a 0.3 HTTP+JSON agent that opens its stream with a status-update
 * saying something (no Task first, as a 0.3 agent may, a follow-up's turn especially): every status message reaches
 * the client once. The Task a 1.0 stream must open with was made from that update and carried its message, and the
 * update followed with it, so a client showing status messages showed "Working on it..." twice. As for a 0.2.5
 * agent (v025-status-said-once.test.ts), the Task is the ids and SUBMITTED.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { defaultRestCard } from '../../support/fake-v03-rest.js';
import { sendRequest, streamedArtifactText, textOf, type Payload } from '../../support/sdk-v1-client.js';
import { StreamReader, connectClient } from './sdk1-client.js';

const WORKING = 'Working on it...';
const DONE = 'Done.';
const REPLY = 'alpha beta gamma';

/** 0.3 proto JSON: an agent message of the task. */
const said = (text: string, n: number) => ({
  messageId: `agent-${n}`,
  role: 'ROLE_AGENT',
  taskId: 'task-1',
  contextId: 'ctx-1',
  content: [{ text }],
});

/** The turn: WORKING "Working on it...", the reply as an artifact, COMPLETED "Done." (final). */
function streamTurn(res: ServerResponse): void {
  const ids = { taskId: 'task-1', contextId: 'ctx-1' };
  const events = [
    { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', message: said(WORKING, 1), timestamp: '2025-07-01T10:00:00.000Z' } } },
    { artifactUpdate: { ...ids, artifact: { artifactId: 'reply', parts: [{ text: REPLY }] }, lastChunk: true } },
    {
      statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED', message: said(DONE, 2), timestamp: '2025-07-01T10:00:01.000Z' }, final: true },
    },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end();
}

/** The status messages a client that shows them shows, in order: the opening Task's, then each update's. */
function statusTexts(payloads: Payload[]): string[] {
  return payloads.flatMap((payload) => {
    const message = payload.$case === 'task' || payload.$case === 'statusUpdate' ? payload.value.status?.message : undefined;
    return message ? [textOf(message)] : [];
  });
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'a 0.3 HTTP+JSON agent opening its stream with a status message, to a 1.x client over %s',
  (binding) => {
    let agent: { url: string; close(): Promise<void> };
    let gateway: TestGateway;
    let client: Client;

    beforeAll(async () => {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end(JSON.stringify({ ...defaultRestCard(url), supportsAuthenticatedExtendedCard: false }));
          }
          if (req.method === 'POST' && req.url === '/agent/v1/message:stream') return streamTurn(res);
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'no route' }));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      agent = { url, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
      gateway = await startTestGateway({ upstream: { url } });
      client = await connectClient(gateway.url, binding);
    });
    afterAll(async () => {
      await gateway?.close();
      await agent?.close();
    });

    it('streams each status message once, the opening Task SUBMITTED, and the reply', async () => {
      const payloads = await new StreamReader(client.sendMessageStream(sendRequest('go'))).rest();
      expect(statusTexts(payloads)).toEqual([WORKING, DONE]);
      expect(payloads[0]?.$case === 'task' ? payloads[0].value.status?.state : payloads[0]?.$case).toBe(TaskState.TASK_STATE_SUBMITTED);
      expect(streamedArtifactText(payloads)).toBe(REPLY);
    });
  },
);
