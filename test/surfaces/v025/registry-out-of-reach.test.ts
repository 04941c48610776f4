/**
 * The facade over a registry that is out of reach and answers nothing (its Redis gone: every read fails):
 * a turn is refused for now before anything is read of its conversation or asked of the agent, and the
 * refusal is told in the turn's language like the gateway's other errors, with `Retry-After`, on
 * message/send (HTTP 200, as every facade error) and message/stream (one SSE frame).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { createTaskRegistry } from '../../../src/core/task-registry/index.js';
import type { TaskRegistry } from '../../../src/core/task-registry/types.js';
import { createGatewayApp } from '../../../src/gateway-app.js';
import { createLogger } from '../../../src/log.js';
import { GATEWAY_FAILURES, STORE_RETRY_AFTER_SECONDS } from '../../../src/model/index.js';
import { userMessage } from '../../support/facade.js';
import { StubPort, fixedCards } from '../support.js';

const registries: TaskRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

/** A registry whose store is gone: known to be out of reach, and every read or write fails. */
function goneRegistry(): TaskRegistry {
  const registry = createTaskRegistry(defaultConfig());
  registries.push(registry);
  const failing = Object.fromEntries(
    Object.keys(registry).map((name) => [name, async () => Promise.reject(new Error('Connection is closed.'))]),
  ) as unknown as TaskRegistry;
  return Object.assign(failing, { outOfReach: () => true, reachable: () => false, close: async () => undefined });
}

async function facadeCall(path: string, method: string, text: string) {
  const port = new StubPort();
  const config = defaultConfig({ 'keepalive-ms': 0 });
  const app = createGatewayApp({ config, port, cards: fixedCards(), registry: goneRegistry(), logger: createLogger('silent') });
  const response = await app.request(`http://gw.test${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'c-1', method, params: { message: userMessage({ text, contextId: 'ctx-1' }) } }),
  });
  const body = await response.text();
  const json = body.startsWith('data: ') ? body.slice('data: '.length) : body;
  return { status: response.status, retryAfter: response.headers.get('retry-after'), error: JSON.parse(json).error, portCalls: port.calls.length };
}

describe('a facade turn while the registry is out of reach', () => {
  it.each([
    ['/', 'message/send'],
    ['/stream', 'message/stream'],
  ])("%s %s: refused for now in the turn's language, before the agent is asked", async (path, method) => {
    const refusal = { status: 200, retryAfter: String(STORE_RETRY_AFTER_SECONDS), portCalls: 0 };
    expect(await facadeCall(path, method, '帮我部署一个网站')).toEqual({
      ...refusal,
      error: { code: -32603, message: '网关暂时无法记录任务，请稍后重试' },
    });
    expect(await facadeCall(path, method, 'Deploy a website for me')).toEqual({
      ...refusal,
      error: { code: -32603, message: GATEWAY_FAILURES.registryOutOfReach },
    });
  });
});
