/**
 * CancelTask through the official a2a-js 1.x client (JSON-RPC, HTTP+JSON, gRPC) → the gateway → a REAL a2a-js 0.2.5
 * agent following the SDK README's cancellation pattern: its executor's cancelTask only flags the task, and the
 * execute loop publishes `canceled` at its next step. The SDK answers tasks/cancel with the task as stored the
 * moment cancelTask returns, still WORKING; the gateway relayed that, so the caller read WORKING of a task that
 * ended canceled. A 1.0 server never answers so (a2a-js 1.x: the task CANCELED or TaskNotCancelableError): the
 * gateway follows the task for a moment (src/core/settled-cancel.ts) and answers CANCELED; an agent that goes on
 * past that bound is answered TaskNotCancelable.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import type { Message } from 'a2a-sdk-025';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-025/server';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANCEL_SETTLE_MS } from '../../../src/core/settled-cancel.js';
import { startSdkV025Server, type RunningSdkV025Server } from '../../support/sdk-v025-server.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectBinding } from './sdk1-client.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
const STEP_MS = 100;
const STOPPED = 'Stopped.';
/** A prompt with this prefix runs on whatever cancels it is asked for, until the test lets it finish. */
const STUBBORN_PREFIX = 'stubborn:';

const withoutWaiting = (request: SendMessageRequest): SendMessageRequest => ({
  ...request,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
});

const promptOf = (message: Message): string => message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');

/** The README's pattern: cancelTask flags the task; the execute loop checks the flag every STEP_MS and publishes `canceled`. */
class FlaggingExecutor implements AgentExecutor {
  readonly flagged = new Set<string>();
  stubbornMayFinish = false;
  cancelTask = async (taskId: string): Promise<void> => {
    this.flagged.add(taskId);
  };
  execute = async ({ taskId, contextId, userMessage }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const stubborn = promptOf(userMessage).startsWith(STUBBORN_PREFIX);
    const timestamp = (): string => new Date().toISOString();
    bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: timestamp() }, history: [userMessage] });
    bus.publish({ kind: 'status-update', taskId, contextId, status: { state: 'working', timestamp: timestamp() }, final: false });
    for (let step = 0; step < 300; step++) {
      await sleep(STEP_MS);
      if (stubborn ? this.stubbornMayFinish : this.flagged.has(taskId)) break;
    }
    const canceled = !stubborn && this.flagged.has(taskId);
    const message = {
      kind: 'message' as const,
      role: 'agent' as const,
      messageId: randomUUID(),
      taskId,
      contextId,
      parts: [{ kind: 'text' as const, text: canceled ? STOPPED : 'Done.' }],
    };
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId,
      final: true,
      status: { state: canceled ? 'canceled' : 'completed', timestamp: timestamp(), message },
    });
    bus.finished();
  };
}

describe('CancelTask of a running task of an a2a-js 0.2.5 agent whose cancel takes effect a moment later', () => {
  const executor = new FlaggingExecutor();
  let agent: RunningSdkV025Server;
  let gateway: TestGateway;
  const clients = new Map<(typeof BINDINGS)[number], Client>();

  beforeAll(async () => {
    agent = await startSdkV025Server({ card: { name: 'flagging', description: 'cancels at its next step', skills: [] }, executor });
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    for (const binding of BINDINGS) clients.set(binding, await connectBinding(gateway.url, binding));
  });
  afterAll(async () => {
    executor.stubbornMayFinish = true;
    await gateway?.close();
    await agent?.close();
  });

  it.each(BINDINGS)('over %s: answers the task CANCELED, as GetTask then shows it', async (binding) => {
    const client = clients.get(binding)!;
    const running = asTask(await client.sendMessage(withoutWaiting(sendRequest('work on it'))));
    expect(running.status?.state).not.toBe(TaskState.TASK_STATE_CANCELED);

    const canceled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
    expect([canceled.id, canceled.status?.state, textOf(canceled.status?.message)]).toEqual([running.id, TaskState.TASK_STATE_CANCELED, STOPPED]);
    const read = await client.getTask({ tenant: '', id: running.id, historyLength: 0 });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a task the agent runs on past the bound is answered TaskNotCancelable, not WORKING', async () => {
    const client = clients.get('JSONRPC')!;
    const running = asTask(await client.sendMessage(withoutWaiting(sendRequest(`${STUBBORN_PREFIX} go`))));
    const started = Date.now();
    const refused = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined }).then(
      (task) => `answered ${TaskState[task.status?.state ?? 0]}`,
      (error: Error) => `${error.constructor.name}: ${error.message}`,
    );
    expect(refused).toMatch(/^JsonRpcTaskNotCancelableError: /);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(CANCEL_SETTLE_MS - 50);
    expect(took).toBeLessThan(CANCEL_SETTLE_MS + 2_000);
    executor.stubbornMayFinish = true;
  });
});
