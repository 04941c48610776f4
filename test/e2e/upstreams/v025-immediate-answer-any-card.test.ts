/**
 * A 1.0 caller answers a REAL a2a-js 0.2.5 agent's question (input-required) with `returnImmediately`, over
 * JSON-RPC, HTTP+JSON and gRPC, when the agent's card says protocolVersion "0.3.0" (an a2a-js 0.2.5 server serves
 * any card it is given) or `streaming: false`. The SDK fails such a non-blocking `message/send` ("Execution
 * finished before a message or task was produced.", -32603) once it ran the turn, as its executor publishes no Task
 * going on with a task: the caller was told the call failed though the agent did the work (GetTask showed it
 * COMPLETED). The gateway streams the turn when the agent streams, whatever its version (upstream/v025/immediate.ts), and
 * otherwise answers such a failure with the task it finds moved on (upstream/v025/unstreamed-follow-up.ts).
 */
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import type { Message, TaskState as V025State, TaskStatusUpdateEvent } from 'a2a-sdk-025';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-025/server';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saidStatus, startSdkV025Server, type RunningSdkV025Server, type SdkV025CardFields } from '../../support/sdk-v025-server.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { connectBinding } from './sdk1-client.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
const QUESTION = 'Which region?';
const deploying = (region: string): string => `Deploying to ${region}`;

const withoutWaiting = (request: SendMessageRequest): SendMessageRequest => ({
  ...request,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
});

const promptOf = (message: Message): string => message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');

/**
 * As the SDK's samples: a first turn opens its Task and asks QUESTION (input-required); the answer to it publishes
 * status updates only: working, then completed "Deploying to <answer>".
 */
class AskingExecutor implements AgentExecutor {
  execute = async ({ taskId, contextId, userMessage, task }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const status = (state: V025State, text: string, final: boolean): TaskStatusUpdateEvent => saidStatus({ taskId, contextId }, state, text, final);
    if (!task) bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [userMessage] });
    bus.publish(status('working', 'Working on it...', false));
    bus.publish(task ? status('completed', deploying(promptOf(userMessage)), true) : status('input-required', QUESTION, true));
    bus.finished();
  };
  cancelTask = async (): Promise<void> => {};
}

const CARDS: Array<[string, Partial<SdkV025CardFields>]> = [
  ['whose card says protocolVersion 0.3.0', { protocolVersion: '0.3.0' }],
  ['whose card says it does not stream', { capabilities: { streaming: false, pushNotifications: false } }],
];

describe.each(CARDS)('returnImmediately answering a question of an a2a-js 0.2.5 agent %s', (_name, card) => {
  let agent: RunningSdkV025Server;
  let gateway: TestGateway;
  const clients = new Map<(typeof BINDINGS)[number], Client>();

  beforeAll(async () => {
    agent = await startSdkV025Server({ card: { name: 'asking', description: 'asks first', skills: [], ...card }, executor: new AskingExecutor() });
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    for (const binding of BINDINGS) clients.set(binding, await connectBinding(gateway.url, binding));
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it.each(BINDINGS)('over %s: the answer returns the task, which then shows the reply', async (binding) => {
    const client = clients.get(binding)!;
    const contextId = `any-card-${binding.replace(/\W/g, '').toLowerCase()}`;
    const asked = asTask(await client.sendMessage(sendRequest('deploy it', { contextId })));
    expect([asked.status?.state, textOf(asked.status?.message)]).toEqual([TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION]);

    const answered = asTask(await client.sendMessage(withoutWaiting(sendRequest('north', { contextId, taskId: asked.id }))));
    expect(answered.id).toBe(asked.id);
    // As the agent has it when the gateway learns of the answer: at work, or done already (it is quick).
    expect([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]).toContain(answered.status?.state);

    const read = () => client.getTask({ tenant: '', id: asked.id, historyLength: 0 });
    await waitUntil(async () => (await read()).status?.state === TaskState.TASK_STATE_COMPLETED);
    expect(textOf((await read()).status?.message)).toBe(deploying('north'));
  });
});
