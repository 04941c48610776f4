/**
 * What a 1.0 webhook (`push-events: terminal`, set inline by the official a2a-js 1.x client) is pushed when a
 * streamed turn ends: the turn's words, as a blocking send's webhook is pushed them. iac-code says its reply in
 * WORKING status chunks and ends the turn with an INPUT_REQUIRED update that carries no message; many SDK agents
 * say it in artifact chunks and end with a bare status update. The receiver was pushed that bare end, and had to
 * call GetTask for the words. Both stores (memory with the local-file queue, Redis with Redis Streams); with
 * `push-events: all` the events are pushed as they are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';
import { startSdkTestAgent, textPart, turnEvents } from '../../support/sdk-v1-agent-kit.js';
import { asTask, collect, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { waitUntil } from '../../support/wait-until.js';
import { Receiver, type Received } from './harness.js';

const IAC_SCRIPT = { before: ['Planning the ', 'network. '], after: ['Wrote main.tf for the VPC.'], artifact: { filename: 'main.tf' } };
const IAC_WORDS = ['Planning the network.', 'Wrote main.tf for the VPC.'];
const SDK_CHUNKS = ['Quota report: ', '3 of 10 VPCs ', 'used.'];
const SDK_WORDS = [SDK_CHUNKS.join('')];

/** A real a2a-js 1.x agent that says its reply in artifact chunks and ends the turn with a status of no message. */
const artifactThenBareStatus: AgentExecutor = {
  async execute(request, bus) {
    const { opening, status, artifact } = turnEvents(request);
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    SDK_CHUNKS.forEach((chunk, i) => bus.publish(artifact('report', [textPart(chunk)], i > 0, i === SDK_CHUNKS.length - 1)));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
  },
  cancelTask: async () => undefined,
};

/** The same, its end stamped with no timestamp (A2A leaves it optional): which turn it ended is told by the send's message. */
const artifactThenUnstampedStatus: AgentExecutor = {
  async execute(request, bus) {
    const { opening, status, artifact } = turnEvents(request);
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    SDK_CHUNKS.forEach((chunk, i) => bus.publish(artifact('report', [textPart(chunk)], i > 0, i === SDK_CHUNKS.length - 1)));
    const { taskId, contextId } = request;
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
        metadata: undefined,
      }),
    );
  },
  cancelTask: async () => undefined,
};

const closing: Array<{ close(): Promise<void> }> = [];
const dirs: string[] = [];
let receiver: Receiver;
let iacUrl: string;
let askingIacUrl: string;
let sdkUrl: string;
let unstampedUrl: string;

const stores = {
  memory: (): Record<string, unknown> => ({}),
  redis: (): Record<string, unknown> => {
    const base = `test-push-turn-end-${randomUUID()}`;
    return {
      store: 'redis',
      'redis-url': REDIS_URL,
      'redis-prefix': `${base}:`,
      'push-queue': 'redis-streams',
      'push-redis-url': REDIS_URL,
      'push-stream': `${base}:push`,
      'push-retry-key': `${base}:push:retry`,
      'push-dead-stream': `${base}:push:dead`,
      'push-consumer-group': `${base}-group`,
    };
  },
};

async function gatewayOver(upstreamUrl: string, store: keyof typeof stores, events: 'terminal' | 'all'): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-push-turn-end-'));
  dirs.push(dir);
  const gateway = await startTestGateway({
    ...stores[store](),
    upstream: { url: upstreamUrl },
    'push-notifications': true,
    'push-allow-private': true,
    'push-events': events,
    'persistence-dir': dir,
  });
  closing.unshift(gateway);
  return gateway;
}

beforeAll(async () => {
  await requireRedis();
  receiver = await new Receiver().up();
  const iac = await startFakeIacCode({ script: IAC_SCRIPT });
  closing.push(iac);
  iacUrl = iac.url;
  // Newer servers end the prompting stream after the prompt (parked): the stream's end is the prompt.
  const asking = await startFakeIacCode({ script: { ...IAC_SCRIPT, permission: true }, permissionWait: 'parked' });
  closing.push(asking);
  askingIacUrl = asking.url;
  const sdk = await startSdkTestAgent(
    {
      name: 'artifact-then-bare-status',
      description: 'an artifact in chunks, then a status with no message',
      skill: { id: 'r', name: 'R', description: 'r' },
    },
    artifactThenBareStatus,
  );
  closing.push(sdk);
  sdkUrl = sdk.url;
  const unstamped = await startSdkTestAgent(
    { name: 'unstamped-end', description: 'an artifact in chunks, then an unstamped status', skill: { id: 'r', name: 'R', description: 'r' } },
    artifactThenUnstampedStatus,
  );
  closing.push(unstamped);
  unstampedUrl = unstamped.url;
});
afterAll(async () => {
  for (const each of closing) await each.close();
  await receiver?.down();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A 1.0 caller's turn with an inline webhook at `path`, streamed or blocking. */
async function turnWithWebhook(gateway: TestGateway, path: string, streamed: boolean): Promise<void> {
  const { client } = await connect(gateway.url, 'JSONRPC');
  const request: SendMessageRequest = {
    ...sendRequest('make a vpc'),
    configuration: {
      acceptedOutputModes: [],
      historyLength: undefined,
      returnImmediately: false,
      taskPushNotificationConfig: { tenant: '', id: 'hook', taskId: '', url: `${receiver.url}${path}`, token: 'tok', authentication: undefined },
    },
  };
  if (streamed) await collect(client.sendMessageStream(request));
  else asTask(await client.sendMessage(request));
}

type Parts = Array<{ text?: string }>;
type Body = {
  task?: {
    status: { state: string; message?: { parts: Parts } };
    history?: Array<{ role: string; parts: Parts }>;
    artifacts?: Array<{ name?: string; parts: Parts }>;
  };
  statusUpdate?: { status: { state: string; message?: { parts: Parts } } };
  artifactUpdate?: { artifact: { parts: Parts } };
};

const stateOf = (entry: Received): string | undefined => {
  const body = entry.json as Body;
  return body.task?.status.state ?? body.statusUpdate?.status.state;
};
const endsTurn = (entry: Received): boolean => ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED'].includes(stateOf(entry) ?? '');
const textOf = (parts: Parts | undefined): string => (parts ?? []).map((part) => part.text ?? '').join('');

/** The agent's words one pushed body shows a reader: its messages, its status message and its artifacts' text. */
function wordsIn(entry: Received): string {
  const body = entry.json as Body;
  if (body.artifactUpdate) return textOf(body.artifactUpdate.artifact.parts);
  if (body.statusUpdate) return textOf(body.statusUpdate.status.message?.parts);
  const task = body.task;
  if (!task) return '';
  const said = (task.history ?? []).filter((message) => message.role === 'ROLE_AGENT').map((message) => textOf(message.parts));
  return [...said, textOf(task.status.message?.parts), ...(task.artifacts ?? []).map((artifact) => textOf(artifact.parts))].join('');
}

/** What a reader makes of a pushed Task, ids and times aside: its state, who said what, and its artifacts' names and text. */
function readerView(entry: Received): unknown {
  const task = (entry.json as Body).task;
  return {
    state: task?.status.state,
    said: (task?.history ?? []).map((message) => [message.role, textOf(message.parts)]),
    artifacts: (task?.artifacts ?? []).map((artifact) => [artifact.name, textOf(artifact.parts)]),
  };
}

/** The one body pushed at `path` for the turn's end, once it came. */
async function turnEnd(path: string): Promise<Received> {
  await waitUntil(async () => receiver.at(path).some(endsTurn), 8_000);
  const ends = receiver.at(path).filter(endsTurn);
  expect(ends).toHaveLength(1);
  return ends[0]!;
}

const upstreams = [
  {
    name: 'iac-code (words in status chunks, INPUT_REQUIRED with no message)',
    url: () => iacUrl,
    words: IAC_WORDS,
    end: 'TASK_STATE_INPUT_REQUIRED',
  },
  { name: 'an a2a-js 1.x agent (words in artifact chunks, a bare COMPLETED)', url: () => sdkUrl, words: SDK_WORDS, end: 'TASK_STATE_COMPLETED' },
  {
    name: 'an a2a-js 1.x agent whose bare COMPLETED carries no timestamp',
    url: () => unstampedUrl,
    words: SDK_WORDS,
    end: 'TASK_STATE_COMPLETED',
  },
];

describe.each(['memory', 'redis'] as const)('push-events: terminal, %s store: a streamed turn ends', (store) => {
  describe.each(upstreams)('$name', ({ url, words, end }) => {
    let gateway: TestGateway;
    beforeAll(async () => {
      gateway = await gatewayOver(url(), store, 'terminal');
    });

    it("pushes the Task with the turn's words, as a blocking send's webhook is pushed", async () => {
      const tag = `/${store}-${randomUUID()}`;
      await turnWithWebhook(gateway, `${tag}-blocking`, false);
      await turnWithWebhook(gateway, `${tag}-streamed`, true);
      const blocking = await turnEnd(`${tag}-blocking`);
      const streamed = await turnEnd(`${tag}-streamed`);

      expect(stateOf(streamed)).toBe(end);
      for (const said of words) expect(wordsIn(blocking).replace(/\s+/g, ' ')).toContain(said);
      for (const said of words) expect(wordsIn(streamed).replace(/\s+/g, ' ')).toContain(said);
      // The shape a blocking send's webhook is pushed: the Task.
      expect(Object.keys(streamed.json as object)).toEqual(['task']);
      expect(readerView(streamed)).toEqual(readerView(blocking));
      expect(streamed.headers['content-type']).toBe('application/a2a+json');
      expect(receiver.at(`${tag}-streamed`)).toHaveLength(1);
    });
  });
});

describe('push-events: terminal, an iac-code permission prompt', () => {
  it('pushes the Task with the words so far and the prompt in its metadata, as the update carried it', async () => {
    const gateway = await gatewayOver(askingIacUrl, 'memory', 'terminal');
    const path = `/prompt-${randomUUID()}`;
    await turnWithWebhook(gateway, path, true);
    const end = await turnEnd(path);
    expect(wordsIn(end).replace(/\s+/g, ' ')).toContain(IAC_WORDS[0]);
    const pushed = end.json as { task?: { status: { state: string }; metadata?: { iac_code?: Record<string, any> } } };
    expect(pushed.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(pushed.task?.metadata?.iac_code).toMatchObject({
      input: { kind: 'permission', toolUseId: 'tu-1', options: [{ id: 'allow_once' }, { id: 'deny' }] },
      permission: { pending: true },
    });
  });
});

describe('push-events: all, an a2a-js 1.x agent streaming artifact chunks', () => {
  it('pushes every event as the stream relayed it: the chunks, then the bare status', async () => {
    const gateway = await gatewayOver(sdkUrl, 'memory', 'all');
    const path = `/all-${randomUUID()}`;
    await turnWithWebhook(gateway, path, true);
    await waitUntil(async () => receiver.at(path).some(endsTurn), 8_000);
    const bodies = receiver.at(path);
    const kinds = bodies.map((entry) => Object.keys(entry.json as object)[0]);
    expect(kinds.filter((kind) => kind === 'artifactUpdate')).toHaveLength(SDK_CHUNKS.length);
    expect(bodies.map(wordsIn).join('')).toBe(SDK_CHUNKS.join(''));
    const last = bodies.at(-1)!.json as Body;
    expect(last.statusUpdate?.status).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
    expect(last.statusUpdate?.status.message).toBeUndefined();
  });
});
