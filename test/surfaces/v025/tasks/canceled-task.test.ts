/**
 * tasks/cancel reads the canceled task again to answer it as tasks/get does (canceled-task.ts). A read that fails
 * once the cancel went through must not tell the caller the cancel failed: the task the agent answered the cancel
 * with is the answer then. Over the composed app and a stub port, which fails that read on purpose.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../../../src/gateway-app.js';
import { defaultConfig } from '../../../../src/config/schema.js';
import { createTaskRegistry } from '../../../../src/core/task-registry/index.js';
import type { TaskRegistry } from '../../../../src/core/task-registry/types.js';
import { createLogger } from '../../../../src/log.js';
import { agentMessage, fixedCards, StubPort, task } from '../../support.js';

const registries: TaskRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

const canceledTask = task('task-1', {
  status: { state: 'TASK_STATE_CANCELED', message: agentMessage('Canceled by request.') },
  artifacts: [{ artifactId: 'a-1', parts: [{ text: 'half a reply' }] }],
});

async function cancel(port: StubPort) {
  const config = defaultConfig({ 'keepalive-ms': 0 });
  const registry = createTaskRegistry(config);
  registries.push(registry);
  const app = createGatewayApp({ config, port, cards: fixedCards(), registry, logger: createLogger('silent') });
  const response = await app.request('http://gw.test/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'c-1', method: 'tasks/cancel', params: { id: 'task-1' } }),
  });
  return (await response.json()) as any;
}

describe('tasks/cancel when the task cannot be read once canceled', () => {
  it('answers with the task the cancel answered, in 0.2.5, not with the failed read', async () => {
    let reads = 0;
    const port = new StubPort({
      // The first read is the check that the task still runs; the one after the cancel fails.
      getTask: async (request) => {
        if (++reads === 1) return task(request.id, { status: { state: 'TASK_STATE_WORKING' } });
        throw new Error('store hiccup');
      },
      cancelTask: async () => canceledTask,
    });
    const answer = await cancel(port);
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ kind: 'task', id: 'task-1', status: { state: 'failed' } });
    expect(answer.result.artifacts).toEqual([{ artifactId: 'a-1', parts: [{ kind: 'text', text: 'half a reply' }] }]);
    expect(port.calls.map((call) => call.method)).toEqual(['getTask', 'cancelTask', 'getTask']);
  });
});
