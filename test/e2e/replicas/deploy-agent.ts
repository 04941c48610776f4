/**
 * A REAL a2a-js 1.x agent (the SDK's DefaultRequestHandler; JSON-RPC and HTTP+JSON, or gRPC) that behaves as a
 * deployment agent does, one script per first word of the prompt, each taking a second or so:
 *   deploy NAME   streams its progress as working status text, builds a plan artifact in three appended
 *                 chunks, returns a file and a data part, and completes with a closing line (deployWords)
 *   ask NAME [N]  streams its progress and starts a notes artifact, thinks N steps (1 by default), then asks a
 *                 question in its input-required status; the answer, sent into the task, is streamed as
 *                 progress, the notes' last chunk (appended), a placement artifact and a closing line (askWords)
 *   fail NAME     starts working, then fails with a reason (failWords)
 *   long NAME N   N steps 150 ms apart, each a progress line and an appended artifact line (longWords);
 *                 CancelTask ends it canceled with a reason
 * What every script says is exported word for word, so a test compares what a client got with it.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState, type AgentCard, type Part } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import {
  part,
  promptOf,
  startSdkTestAgent,
  statusEvent,
  testAgentCard,
  textPart,
  turnEvents,
  type RunningTestAgent,
  type TestAgentCardSpec,
} from '../../support/sdk-v1-agent-kit.js';
import { serveSdkAgent } from '../../support/sdk-v1-server.js';

const STEP_MS = 150;

export const deployWords = (name: string) => ({
  progress: [`Checking the quota for ${name}.`, `Creating the network for ${name}.`],
  plan: [`Step 1: quota checked for ${name}. `, 'Step 2: network created. ', 'Step 3: service started.'],
  manifest: Buffer.from(JSON.stringify({ service: name, replicas: 2 }, null, 2)),
  data: { service: name, region: 'cn-hangzhou', ready: true },
  done: `Deployed ${name}.`,
});

export const askWords = (name: string, answer = '') => ({
  progress: [`Looking up the regions open to ${name}.`],
  /** The notes artifact: its first chunk said before the question, the second appended after the answer. */
  notes: [`Regions open to ${name}: eu, ap, us. `, `Chosen: ${answer}.`],
  question: `Which region should ${name} run in?`,
  resumed: [`Placing ${name} in ${answer}.`],
  placement: `${name} runs in ${answer}.`,
  done: `Done: ${name} is in ${answer}.`,
});

/** What the agent says canceling a task whose question nobody answered. */
export const QUESTION_DROPPED = 'No region chosen: stopped as asked.';

export const failWords = (name: string) => ({
  progress: `Starting ${name}.`,
  reason: `Quota exhausted: no room for ${name} in cn-hangzhou.`,
});

export const longWords = (name: string, steps: number) => ({
  progress: Array.from({ length: steps }, (_, i) => `Step ${i + 1} of ${steps} for ${name}.`),
  lines: Array.from({ length: steps }, (_, i) => `line ${i + 1}\n`),
  done: `Finished ${name}.`,
  canceled: `Stopped ${name} as asked.`,
});

/** A status update saying `text` as a message of its own (a new id each time, as an agent narrating its steps). */
const say = (request: RequestContext, state: TaskState, text: string) => statusEvent(request.taskId, request.contextId, state, text, randomUUID());

class DeployScripts implements AgentExecutor {
  /** Tasks waiting for the answer to `ask`, with the name asked about. */
  private readonly asking = new Map<string, string>();
  /** The context of each task waiting for an answer. */
  private readonly waitingContexts = new Map<string, string>();
  private readonly running = new Map<string, { contextId: string; name: string; abort: AbortController }>();
  /** Every turn the agent ran, by task id: how many times it was asked for each task. */
  readonly turns: string[] = [];

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = request;
    this.turns.push(taskId);
    const [script = '', name = 'app', count] = promptOf(userMessage, ' ').trim().split(/\s+/);
    const { opening, artifact } = turnEvents(request);
    const abort = new AbortController();
    this.running.set(taskId, { contextId, name, abort });
    const pause = () =>
      sleep(STEP_MS, undefined, { signal: abort.signal }).then(
        () => true,
        () => false,
      );
    try {
      const askedAbout = request.task ? this.asking.get(request.task.id) : undefined;
      if (request.task && askedAbout !== undefined) {
        this.asking.delete(request.task.id);
        this.waitingContexts.delete(request.task.id);
        const words = askWords(askedAbout, promptOf(userMessage, ' ').trim());
        bus.publish(AgentEvent.task(request.task));
        for (const line of words.resumed) bus.publish(say(request, TaskState.TASK_STATE_WORKING, line));
        bus.publish(artifact('notes', [textPart(words.notes[1] ?? '')], true, true));
        if (!(await pause())) return;
        bus.publish(artifact('placement', [textPart(words.placement)], false, true));
        bus.publish(say(request, TaskState.TASK_STATE_COMPLETED, words.done));
        return;
      }
      bus.publish(opening());
      switch (script) {
        case 'deploy': {
          const words = deployWords(name);
          for (const line of words.progress) {
            bus.publish(say(request, TaskState.TASK_STATE_WORKING, line));
            if (!(await pause())) return;
          }
          for (const [i, chunk] of words.plan.entries()) {
            bus.publish(artifact('plan', [textPart(chunk)], i > 0, i === words.plan.length - 1));
            if (!(await pause())) return;
          }
          const files: Part[] = [
            part({ $case: 'raw', value: words.manifest }, { filename: 'manifest.json', mediaType: 'application/json' }),
            part({ $case: 'data', value: words.data }, { mediaType: 'application/json' }),
          ];
          bus.publish(artifact('manifest', files, false, true));
          bus.publish(say(request, TaskState.TASK_STATE_COMPLETED, words.done));
          return;
        }
        case 'ask': {
          const words = askWords(name);
          for (const line of words.progress) bus.publish(say(request, TaskState.TASK_STATE_WORKING, line));
          bus.publish(artifact('notes', [textPart(words.notes[0] ?? '')], false, false));
          for (let step = 0; step < Number(count ?? 1); step++) if (!(await pause())) return;
          this.asking.set(taskId, name);
          this.waitingContexts.set(taskId, contextId);
          bus.publish(say(request, TaskState.TASK_STATE_INPUT_REQUIRED, words.question));
          return;
        }
        case 'fail': {
          const words = failWords(name);
          bus.publish(say(request, TaskState.TASK_STATE_WORKING, words.progress));
          if (!(await pause())) return;
          bus.publish(say(request, TaskState.TASK_STATE_FAILED, words.reason));
          return;
        }
        case 'long': {
          const words = longWords(name, Number(count ?? 10));
          for (const [i, line] of words.progress.entries()) {
            bus.publish(say(request, TaskState.TASK_STATE_WORKING, line));
            bus.publish(artifact('log', [textPart(words.lines[i] ?? '')], i > 0, i === words.lines.length - 1));
            if (!(await pause())) return;
          }
          bus.publish(say(request, TaskState.TASK_STATE_COMPLETED, words.done));
          return;
        }
        default:
          bus.publish(say(request, TaskState.TASK_STATE_COMPLETED, `Unknown script: ${script}`));
      }
    } finally {
      this.running.delete(taskId);
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const turn = this.running.get(taskId);
    if (turn) {
      turn.abort.abort();
      this.running.delete(taskId);
      bus.publish(statusEvent(taskId, turn.contextId, TaskState.TASK_STATE_CANCELED, longWords(turn.name, 0).canceled));
      return;
    }
    // A question nobody will answer: the SDK waits for the canceled status, so say it.
    const waiting = this.waitingContexts.get(taskId);
    if (waiting === undefined) return;
    this.asking.delete(taskId);
    this.waitingContexts.delete(taskId);
    bus.publish(statusEvent(taskId, waiting, TaskState.TASK_STATE_CANCELED, QUESTION_DROPPED));
  };
}

export interface RunningDeployAgent extends RunningTestAgent {
  /** The task id of every turn the agent ran, oldest first. */
  turns: string[];
}

const CARD: TestAgentCardSpec = {
  name: 'deploy-agent',
  description: 'Deploys services: streams its progress, asks where, returns files, fails with a reason.',
  rest: true,
  defaultOutputModes: ['text/plain', 'application/json'],
  skill: { id: 'deploy', name: 'Deploy', description: 'deploy NAME, ask NAME [N], fail NAME, long NAME N' },
};

/** `grpc`: the agent serves the SDK's gRPC binding only (its card lists that interface alone), else JSON-RPC and HTTP+JSON. */
export async function startDeployAgent(options: { grpc?: boolean } = {}): Promise<RunningDeployAgent> {
  const scripts = new DeployScripts();
  if (!options.grpc) return { ...(await startSdkTestAgent(CARD, scripts)), turns: scripts.turns };
  const httpCard = testAgentCard(CARD);
  const grpcCard = (baseUrl: string, grpcAddress?: string): AgentCard => ({
    ...httpCard(baseUrl),
    supportedInterfaces: [{ url: grpcAddress ?? '', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }],
  });
  const { url, server, grpcServer } = await serveSdkAgent(grpcCard, scripts, { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' }, { grpcOnly: true });
  return {
    url,
    turns: scripts.turns,
    close: () =>
      new Promise<void>((resolve) => {
        grpcServer?.forceShutdown();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
