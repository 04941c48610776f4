/**
 * `upstream.socket-path`: an agent that listens on a unix domain socket instead of a TCP port (as the
 * iac-code sidecar can), bridged with its URL naming only the Host. The demo agent serves here on a
 * socket; nothing listens on the URL's TCP port, so every answer must have come over the socket.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoAgentApp, demoReply } from '../../../src/demo-agent/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const AGENT_URL = 'http://iac-code.invalid';
let dir: string;
let server: Server;
let close: () => void;
let gateway: TestGateway;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-socket-'));
  const socketPath = join(dir, 'agent.sock');
  const { app, runtime } = createDemoAgentApp({ baseUrl: AGENT_URL });
  server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(socketPath, () => resolve()));
  close = () => {
    runtime.close();
    server.closeAllConnections();
    server.close();
  };
  gateway = await startTestGateway({ upstream: { url: AGENT_URL, 'socket-path': socketPath } });
});
afterAll(async () => {
  await gateway?.close();
  close?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const rpc = async (method: string, params: unknown) => {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { response, text: await response.text() };
};

describe('an upstream on a unix socket', () => {
  it("serves the agent's card and answers a blocking turn through the socket", async () => {
    const card = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as { name: string };
    expect(card.name).toBeTruthy();
    const { text } = await rpc('SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'over the socket' }] } });
    const body = JSON.parse(text) as { result?: { task?: { artifacts?: Array<{ parts: Array<{ text?: string }> }> } } };
    expect(JSON.stringify(body.result?.task?.artifacts)).toContain(JSON.stringify(demoReply('over the socket', 1).full).slice(1, -1));
  });

  it('streams a turn through the socket', async () => {
    const { response, text } = await rpc('SendStreamingMessage', { message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'stream' }] } });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(text).toContain('TASK_STATE_INPUT_REQUIRED');
  });
});
