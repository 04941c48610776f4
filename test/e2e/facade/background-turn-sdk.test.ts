/**
 * A REAL a2a-js 1.x agent whose card does not stream and that works on a task in the background: its executor takes
 * the task up (WORKING, with words) and returns, so the SDK answers the blocking SendMessage with the task still
 * working; the agent then writes what it does to its task store (a file, then its answer or a question), where GetTask
 * reads it. A 1.0 client polls GetTask; a Bailian user cannot, and read only that the agent ended its turn early
 * (words.endedEarly), the conversation's next message refused as a turn in progress. Now the facade reads the task
 * until it ends or asks: the user reads the agent's working words, then its file and answer (or its question), in
 * message/send and message/stream alike; past the turn's bound, that the agent goes on, and the next message shows the rest.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState, type Part, type Task } from 'a2a-sdk-1';
import { InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { agentMessage, promptOf, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

const H = { 'X-API-KEY': API_KEY };

/** What the agent does in the background after it took the task up, each step `afterMs` after the one before. */
type Later = { afterMs: number; file: string; parts: Part[] } | { afterMs: number; status: TaskState; said: string };

interface Plan {
  working: string;
  later: Later[];
}

const PLANS: Record<string, Plan> = {
  'deploy the website': {
    working: 'Deploying the website now.',
    later: [
      { afterMs: 700, file: 'plan', parts: [textPart('Step one: create the VPC.')] },
      { afterMs: 700, status: TaskState.TASK_STATE_COMPLETED, said: 'The website is deployed.' },
    ],
  },
  部署一个网站: {
    working: '正在部署网站。',
    later: [
      { afterMs: 700, file: 'plan', parts: [textPart('第一步：创建专有网络。')] },
      { afterMs: 700, status: TaskState.TASK_STATE_COMPLETED, said: '网站已部署。' },
    ],
  },
  'open an account': {
    working: 'Checking your account.',
    later: [{ afterMs: 1000, status: TaskState.TASK_STATE_INPUT_REQUIRED, said: 'Which region should it be in?' }],
  },
  /** Longer than the bounded gateway's bound (BOUND_MS), far shorter than a test's time-out. */
  'migrate the database': {
    working: 'Migrating the database.',
    later: [{ afterMs: 6_000, status: TaskState.TASK_STATE_COMPLETED, said: 'The database is migrated.' }],
  },
  再试一次: { working: '', later: [] },
  'how did it go?': { working: '', later: [] },
};

/** The agent as its SDK would keep it: each status message in the history too, each file among the artifacts. */
async function recorded(store: InMemoryTaskStore, request: RequestContext, step: Later): Promise<void> {
  const task = (await store.load(request.taskId, request.context)) as Task;
  if ('file' in step) {
    task.artifacts = [
      ...task.artifacts,
      { artifactId: step.file, name: step.file, description: '', parts: step.parts, metadata: undefined, extensions: [] },
    ];
  } else {
    const message = agentMessage(step.said, request.taskId, request.contextId);
    task.status = { state: step.status, message, timestamp: new Date().toISOString() };
    task.history = [...task.history, message];
  }
  await store.save(task, request.context);
}

class BackgroundWorker implements AgentExecutor {
  /** The conversations whose background work has ended: its last step is in the task store. */
  readonly ended = new Set<string>();

  constructor(private readonly store: InMemoryTaskStore) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { opening, status } = turnEvents(request);
    const plan = PLANS[promptOf(request.userMessage, ' ').trim()];
    bus.publish(opening());
    if (!plan || plan.later.length === 0) {
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, plan ? 'Done again.' : 'no such plan'));
      return;
    }
    bus.publish(status(TaskState.TASK_STATE_WORKING, plan.working));
    // Returns with the task working: the SDK answers the blocking call now; the work goes on without the event bus.
    void (async () => {
      for (const step of plan.later) {
        await sleep(step.afterMs);
        await recorded(this.store, request, step);
      }
      this.ended.add(request.contextId);
    })();
  };

  cancelTask = async (): Promise<void> => undefined;
}

/** Far below the main gateway's bound: the answer comes in seconds. */
const REQUEST_TIMEOUT_MS = 60_000;
/** The bounded gateway's: shorter than 'migrate the database' takes. */
const BOUND_MS = 3_000;

let agent: RunningTestAgent;
let worker: BackgroundWorker;
let gateway: RunningGateway;
let bounded: RunningGateway;
beforeAll(async () => {
  const store = new InMemoryTaskStore();
  worker = new BackgroundWorker(store);
  agent = await startSdkTestAgent(
    {
      name: 'Background worker',
      description: 'Takes a task up and works on it in the background',
      skill: { id: 'work', name: 'Work', description: 'deploy the website' },
      streaming: false,
    },
    worker,
    { taskStore: store },
  );
  gateway = await startFacadeGateway({ upstream: { url: agent.url, 'request-timeout-ms': REQUEST_TIMEOUT_MS }, bailian: { 'api-key': API_KEY } });
  bounded = await startFacadeGateway({ upstream: { url: agent.url, 'request-timeout-ms': BOUND_MS }, bailian: { 'api-key': API_KEY } });
});
afterAll(async () => {
  await gateway?.close();
  await bounded?.close();
  await agent?.close();
});

/** What a Bailian user reads of `text` sent with `method` to `at`, and the state its turn ended in. */
async function read(
  at: RunningGateway,
  method: 'message/send' | 'message/stream',
  text: string,
  contextId: string,
): Promise<{ text: string; state: string }> {
  const message = userMessage({ text, contextId });
  if (method === 'message/send') {
    const answer = await rpc(at.url, method, { message }, { headers: H });
    if (answer.body.error) return { text: `error: ${answer.body.error.message}`, state: 'error' };
    return { text: sentText(answer.body.result), state: answer.body.result.status.state };
  }
  const stream = await openStream(`${at.url}/stream`, method, { message }, { headers: H });
  const frames = await stream.rest();
  const error = frames.map((frame) => frame.json.error).find(Boolean);
  if (error) return { text: `error: ${error.message}`, state: 'error' };
  const events = results(frames);
  return { text: streamedText(events), state: events.at(-1).status.state };
}

const METHODS = ['message/send', 'message/stream'] as const;
const CASES = METHODS.flatMap((method) => [
  {
    method,
    prompt: 'deploy the website',
    reads: 'Deploying the website now.\nStep one: create the VPC.\nThe website is deployed.',
    state: 'completed',
  },
  { method, prompt: '部署一个网站', reads: '正在部署网站。\n第一步：创建专有网络。\n网站已部署。', state: 'completed' },
  { method, prompt: 'open an account', reads: 'Checking your account.\nWhich region should it be in?', state: 'input-required' },
]);

describe('an agent that does not stream and answers a blocking call with its task still working', () => {
  // The longest tests (a bound, then the agent's 6 s) first, so that they are not the last ones left running.
  it.concurrent.for(METHODS)(
    "%s: past the turn's bound, that the agent goes on; the next message shows the rest",
    { timeout: 60_000 },
    async (method, { expect }) => {
      const contextId = randomUUID();
      const turn = await read(bounded, method, 'migrate the database', contextId);
      // Its working words, then that it goes on (words.turnLeftRunning), not that it ended early.
      expect(turn.text).toMatch(
        /^Migrating the database\.\nThe agent is taking longer than this reply can wait, but it is still working on your request\./,
      );
      // The agent finishes after the bound (6 s after it took the task up); the next message, sent then, shows its answer.
      await expect.poll(() => worker.ended.has(contextId), { timeout: 20_000 }).toBe(true);
      const next = await read(bounded, method, 'how did it go?', contextId);
      expect(next.text).toMatch(/^Here is the rest of the reply to your previous message[^\n]*\n\nThe database is migrated\.$/);
    },
  );

  it.concurrent.for(CASES)(
    '$method ($prompt): its working words, then its answer',
    { timeout: 60_000 },
    async ({ method, prompt, reads, state }, { expect }) => {
      const turn = await read(gateway, method, prompt, randomUUID());
      expect(turn).toEqual({ text: reads, state });
    },
  );

  it.concurrent.for(METHODS)('%s: the conversation goes on once the task ended', { timeout: 60_000 }, async (method, { expect }) => {
    const contextId = randomUUID();
    // Sent as soon as the turn's reply ended: the agent has ended the task by then, and takes the next message.
    const first = await read(gateway, method, 'deploy the website', contextId);
    const next = await read(gateway, method, '再试一次', contextId);
    expect([first.state, next]).toEqual(['completed', { text: 'Done again.', state: 'completed' }]);
  });
});
