/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 0.2.5 agent that says something in each status it
 * publishes: every status message reaches the client once, on every binding. A 0.2.5 agent going on with its
 * task (the answer to its input-required question) opens the stream with a status-update, not a Task; the Task a
 * 1.0 stream must open with was made from that update and carried its message, and the update followed with it,
 * so a client showing status messages showed "Working on it..." twice (the project's CLI printed it twice). A native
 * 1.0 agent opens the turn with a SUBMITTED Task and says what it says in its updates; so does the gateway, also on
 * the first turn of an agent that publishes no Task at all.
 */
import { randomUUID } from 'node:crypto';
import type { Message, TaskState, TaskStatusUpdateEvent } from 'a2a-sdk-025';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-025/server';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saidStatus, startSdkV025Server, type RunningSdkV025Server } from '../../support/sdk-v025-server.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { cli } from '../../support/run-cli.js';
import { payloadRef, sendRequest, textOf, type Payload } from '../../support/sdk-v1-client.js';
import { connectBinding, StreamReader } from './sdk1-client.js';

const WORKING = 'Working on it...';
const QUESTION = 'Which region?';
/** A first turn with this prefix publishes no Task: its stream opens with a status-update, as a follow-up's does. */
const UNOPENED_PREFIX = 'unopened:';
const deploying = (region: string): string => `Deploying to ${region}`;

const promptOf = (message: Message): string => message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');

/**
 * A first turn: Task (submitted) unless UNOPENED_PREFIX → working "Working on it..." → input-required "Which
 * region?" (final). The answer to the question: working "Working on it..." → completed "Deploying to <answer>" (final).
 */
class TalkativeExecutor implements AgentExecutor {
  execute = async ({ taskId, contextId, userMessage, task }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const prompt = promptOf(userMessage);
    const status = (state: TaskState, text: string, final: boolean): TaskStatusUpdateEvent => saidStatus({ taskId, contextId }, state, text, final);
    if (!task && !prompt.startsWith(UNOPENED_PREFIX)) {
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [userMessage] });
    }
    bus.publish(status('working', WORKING, false));
    bus.publish(task ? status('completed', deploying(prompt), true) : status('input-required', QUESTION, true));
  };
  cancelTask = async (): Promise<void> => {};
}

/** The status messages a client that shows them shows, in order: the opening Task's, then each update's. */
function statusTexts(payloads: Payload[]): string[] {
  return payloads.flatMap((payload) => {
    const message = payload.$case === 'task' || payload.$case === 'statusUpdate' ? payload.value.status?.message : undefined;
    return message ? [textOf(message)] : [];
  });
}

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

describe('status messages of a 0.2.5 agent, through the official 1.x client', () => {
  let agent: RunningSdkV025Server;
  let gateway: TestGateway;
  const clients = new Map<(typeof BINDINGS)[number], Client>();

  beforeAll(async () => {
    agent = await startSdkV025Server({
      card: { name: 'talkative', description: 'says what it does', skills: [] },
      executor: new TalkativeExecutor(),
    });
    gateway = await startTestGateway({ grpc: { port: 0 }, upstream: { url: agent.url } });
    for (const binding of BINDINGS) {
      clients.set(binding, await connectBinding(gateway.url, binding));
    }
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const streamed = (binding: (typeof BINDINGS)[number], text: string, ids: { contextId?: string; taskId?: string } = {}) =>
    new StreamReader(clients.get(binding)!.sendMessageStream(sendRequest(text, ids))).rest();

  it.each(BINDINGS)('%s: the answer to the question streams each status message once', async (binding) => {
    const contextId = `ctx-${randomUUID()}`;
    const asked = await streamed(binding, 'deploy the app', { contextId });
    expect(statusTexts(asked)).toEqual([WORKING, QUESTION]);

    const answered = await streamed(binding, 'us-west', { contextId, taskId: payloadRef(asked[0]!).taskId });
    expect(answered[0]?.$case).toBe('task');
    expect(statusTexts(answered)).toEqual([WORKING, deploying('us-west')]);
  });

  it("the project's CLI answering the question prints what the agent says in this turn, each once", async () => {
    const asked = await streamed('JSONRPC', 'deploy the app');
    const { taskId, contextId } = payloadRef(asked[0]!);
    const run = await cli(['call', gateway.url, '--task', taskId, '--context', contextId, 'us-west']);
    expect(run.stdout).toBe(`${WORKING}\n${deploying('us-west')}\n`);
  });

  it.each(BINDINGS)('%s: a first turn the agent opens with a status-update streams each status message once', async (binding) => {
    const opened = await streamed(binding, `${UNOPENED_PREFIX} deploy`);
    expect(opened[0]?.$case).toBe('task');
    expect(statusTexts(opened)).toEqual([WORKING, QUESTION]);
  });
});
