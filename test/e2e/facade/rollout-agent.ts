/**
 * The agents and the reading of the rollout and unwatched-turn tests: a REAL a2a-js 1.x agent whose
 * turn outlives the gateway replica that carried it, and what a Bailian user reads of a message/stream.
 */
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { openStream, results, rpc, startFacadeGateway, streamedText, userMessage, type OpenStream } from '../../support/facade.js';
import { Gates, promptOf, startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

export const BEFORE_CUT = ['第一段：开始规划。', '第二段：正在创建 VPC。'];
export const AFTER_CUT = '第三段：交换机已创建。';
export const DONE = '完成：VPC 已就绪。';
export const QUESTION = '请问下一个 VPC 放在哪个地域？';
export const ANSWER = '好的，这是一个新的回答。';
/** What the cut tells a Chinese user, and what opens the rest on the next message. */
export const CUT_WORDS = '连接已中断（网关正在重启），但智能体仍在继续处理你的请求';
export const REST_WORDS = '以下是你上一条消息在连接中断后的后续回复';
/** How the reply to a turn its user read none of opens (the agent's first word came after they left). */
export const WHOLE_WORDS = '以下是你上一条消息的完整回复';

export const CARD = {
  name: 'rollout',
  description: 'An agent whose turn outlives the replica that carried it.',
  skill: { id: 'vpc', name: 'VPC', description: 'plans' },
};

/**
 * Two messages, a gate the test opens, a third message, then the answer (or, asked to "提问", a question); a
 * message with "你好" is answered at once, without the gate.
 */
export class RolloutAgent implements AgentExecutor {
  executions = 0;
  constructor(private readonly gates: Gates) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.executions++;
    const { opening, status } = turnEvents(request);
    bus.publish(opening());
    const prompt = promptOf(request.userMessage);
    if (prompt.includes('你好')) {
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, ANSWER));
      return;
    }
    this.gates.taskId = request.taskId;
    for (const said of BEFORE_CUT) bus.publish(status(TaskState.TASK_STATE_WORKING, said));
    await this.gates.pass();
    bus.publish(status(TaskState.TASK_STATE_WORKING, AFTER_CUT));
    if (prompt.includes('提问')) bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
    else bus.publish(status(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

/** The agent's own word on a task. */
export const agentStateOf = async (agentUrl: string, taskId: string | undefined): Promise<string> =>
  (await rpc(`${agentUrl}/a2a/jsonrpc`, 'GetTask', { id: taskId }, { headers: { 'A2A-Version': '1.0' } })).body.result?.status?.state;

/** What the user reads of a message/stream: its text and its last state; and the task id it was told. */
export const read = async (opened: OpenStream): Promise<{ text: string; state: string; taskId: string }> => {
  const events = results(await opened.rest());
  return { text: streamedText(events), state: events.at(-1)?.status?.state, taskId: events[0]?.id ?? events[0]?.taskId };
};

export const stream = (url: string, text: string, contextId: string): Promise<OpenStream> =>
  openStream(`${url}/stream`, 'message/stream', { message: userMessage({ text, contextId }) });

/** The words QuietAgent says: its question, what it says before the gate ("后台"), after it, and its end. */
export interface QuietWords {
  question: string;
  before: string;
  after: string;
  done: string;
}

/**
 * A message with "开始"/"start" is asked a question at once; one with "后台" says its first words, then waits at
 * the gate; any other waits at the gate before it says anything (a turn cut or left before the agent's first word).
 */
export class QuietAgent implements AgentExecutor {
  executions = 0;
  constructor(
    private readonly gates: Gates,
    private readonly words: QuietWords = { question: QUESTION, before: BEFORE_CUT[0]!, after: AFTER_CUT, done: DONE },
  ) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.executions++;
    const { opening, status } = turnEvents(request);
    const { question, before, after, done } = this.words;
    if (/开始|start/u.test(promptOf(request.userMessage))) {
      bus.publish(opening());
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, question));
      return;
    }
    this.gates.taskId = request.taskId;
    const talks = promptOf(request.userMessage).includes('后台');
    if (talks) {
      bus.publish(opening());
      bus.publish(status(TaskState.TASK_STATE_WORKING, before));
    }
    await this.gates.pass();
    if (!talks) bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING, after));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, done));
  };

  cancelTask = async (): Promise<void> => undefined;
}

/** A QuietAgent and a facade gateway in front of it, for one describe's tests. */
export interface QuietAgentBehindFacade {
  gates: Gates;
  executor: QuietAgent;
  readonly agent: RunningTestAgent;
  readonly gateway: RunningGateway;
}

/**
 * A QuietAgent on a free port and a facade gateway in front of it (`upstream`: the gateway's upstream settings
 * besides the agent's url), started before the calling describe's tests and closed after them, its gates let go.
 */
export function quietAgentBehindFacade(upstream: Record<string, unknown> = {}): QuietAgentBehindFacade {
  const gates = new Gates();
  const executor = new QuietAgent(gates);
  let agent: RunningTestAgent | undefined;
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    agent = await startSdkTestAgent(CARD, executor);
    gateway = await startFacadeGateway({ upstream: { url: agent.url, ...upstream } });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
    await agent?.close();
  });
  return {
    gates,
    executor,
    get agent() {
      if (!agent) throw new Error('the quiet agent is not started: use it inside a test');
      return agent;
    },
    get gateway() {
      if (!gateway) throw new Error('the facade gateway is not started: use it inside a test');
      return gateway;
    },
  };
}
