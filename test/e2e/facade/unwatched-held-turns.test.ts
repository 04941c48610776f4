/**
 * A Bailian user stops watching the turn that answers a question of a REAL a2a-js 1.x agent before the agent says
 * a word of it. As an a2a-js 1.x agent (and iac-code through it) takes up an answer, that turn's stream opens with
 * the task as it stands: still input-required. The turn still goes on: the user must be told it is not answered yet (not "上游智能体响应超时"),
 * and their next message must show the agent's reply, not be sent to the agent as a new answer.
 */
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent } from 'a2a-sdk-1/server';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/index.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { Gates, startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';
import { CARD, DONE, QUESTION, WHOLE_WORDS, agentStateOf, stream } from './rollout-agent.js';

const WORKING = '正在部署。';
const words = facadeWords('zh');

/** Asks at once; takes up the answer quietly (the task still waiting, then a gate the test opens), then is done. */
class QuietAnswerAgent implements AgentExecutor {
  executions = 0;
  constructor(private readonly gates: Gates) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.executions++;
    const { opening, status } = turnEvents(request);
    if (!request.task) {
      bus.publish(opening());
      bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
      return;
    }
    this.gates.taskId = request.taskId;
    bus.publish(AgentEvent.task(request.task));
    await this.gates.pass();
    bus.publish(status(TaskState.TASK_STATE_WORKING, WORKING));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

describe('an answer turn its Bailian user stopped watching before the agent said a word', () => {
  const gates = new Gates();
  const executor = new QuietAnswerAgent(gates);
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startSdkTestAgent(CARD, executor);
    gateway = await startFacadeGateway({ upstream: { url: agent.url, 'request-timeout-ms': 400 } });
  });
  afterAll(async () => {
    gates.reset(0);
    await gateway?.close();
    await agent?.close();
  });

  /** What the user reads of a message/send: its answer's text, or the error it ended with. */
  const send = async (text: string, contextId: string): Promise<string> => {
    const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text, contextId }) });
    return body.error?.message ?? sentText(body.result);
  };
  const asked = async (contextId: string): Promise<void> => {
    expect(await send('部署网站', contextId)).toContain(QUESTION);
    gates.reset(1);
  };
  const expectRestShown = async (contextId: string, executions: number, lead = WHOLE_WORDS): Promise<void> => {
    gates.open();
    await waitUntil(async () => (await agentStateOf(agent.url, gates.taskId)) === 'TASK_STATE_COMPLETED');
    const next = await send('好的', contextId);
    expect(next).toContain(lead);
    expect(next).toContain(DONE);
    // The message that read the reply was not passed on as another answer.
    expect(executor.executions).toBe(executions + 1);
  };

  it('Bailian hangs up the answer stream: the next message shows the reply, unsent', async () => {
    const contextId = `unwatched-held-stream-${Date.now()}`;
    await asked(contextId);
    const executions = executor.executions;
    const opened = await stream(gateway.url, '杭州', contextId);
    await waitUntil(async () => gates.reached === 1);
    // The gateway has the task's opening (still waiting) before the hang-up, and hears of the hang-up before the agent goes on.
    await new Promise((resolve) => setTimeout(resolve, 100));
    opened.abort();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await expectRestShown(contextId, executions);
  });

  it('the answer by message/send runs past its bound: told the agent has not answered yet, and the next message shows the reply', async () => {
    const contextId = `unwatched-held-send-${Date.now()}`;
    await asked(contextId);
    const executions = executor.executions;
    const answered = await send('杭州', contextId);
    // The agent's waiting task still asks what its user just answered: not shown again as if the answer were refused.
    expect(answered).toBe(words.notAnsweredYet);
    // Its user read none of the reply at the bound: what follows is the reply whole, which the agent went on to give.
    await expectRestShown(contextId, executions, words.timedOutTurnWhole);
  });
});
