/**
 * A REAL a2a-js 1.x server whose executor streams its answer a few tokens at a time, each in a working
 * message of its own (as a2a-python's `new_agent_text_message` per chunk does), one script per prompt:
 *   finish  tokens that stop short of the answer's last word, then the whole answer as the final message
 *   code    a Python class streamed in tokens that split its identifiers
 *   slow    a progress line, then a long wait in which the turn can be canceled (a silent cancel)
 *   running-new, running-whole, running-end, running-lower
 *           tokens as messages that share one messageId, then the final status with that id: new words
 *           (in Chinese), the whole text again and finished, its last sentence again finished, its last
 *           word piece in lower case
 *   cumulative
 *           messages that each hold the whole text so far, each its own id (DashScope/Qwen with
 *           `incremental_output=false`, forwarded chunk by chunk): a short heading, a table, a list, inline code
 *   cumulative-lists
 *           the same, two answers in a row each a list that grows by a line: each line once
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { promptOf, startSdkTestAgent, statusEvent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

export const FINISH_TOKENS = ['The VPC ', 'quota is ', '10 per ', 'region'];
export const FINISH_ANSWER = 'The VPC quota is 10 per region.';
export const CODE_TOKENS = ['Here it is:\n```python\nclass My', 'Vpc(Base):\n    def get', 'Name(self):\n        return self.vpc', 'Name\n```'];
export const SLOW_PROGRESS = 'Starting the deployment.';
/** What each message of `cumulative` adds: each message holds these up to its own. */
export const CUMULATIVE_PIECES = [
  '## 部署',
  '方案\n\n我将创建以下资源：\n',
  '\n| 资源 | 数量 |\n|---|---|\n| ',
  '专有网络 | 1 |\n\n步骤如下：\n1. 创建专有网络。\n',
  '2. 创建交换机。\n\n执行 `aliyun ros CreateStack` ',
  '即可部署。',
];
/** The two answers of `cumulative-lists`, by line: each message holds its answer up to one of them. */
export const CUMULATIVE_LISTS = [
  ['Deployment plan:\n', '- create the VPC\n', '- create the vSwitch\n'],
  ['- VPC created: vpc-123\n', '- vSwitch created: vsw-456\n', '- ECS created: i-789\n'],
];
/** Tokens under one message id, and the closing message under it, by prompt. */
export const RUNNING: Readonly<Record<string, { tokens: readonly string[]; closing: string }>> = {
  'running-new': { tokens: ['正在', '部署'], closing: '部署完成。' },
  'running-whole': { tokens: ['正在', '部署'], closing: '正在部署完成。' },
  'running-end': { tokens: ['资源已创建。', '部署完成'], closing: '部署完成。' },
  'running-lower': { tokens: ['The stack is ', 'deploy'], closing: 'ed.' },
};

class TokenStreamer implements AgentExecutor {
  private readonly contexts = new Map<string, string>();
  /** The waits of slow turns, ended by their cancel so that no timer outlives the test. */
  private readonly waits = new Map<string, AbortController>();

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = request;
    this.contexts.set(taskId, contextId);
    const prompt = promptOf(userMessage);
    const { opening, status } = turnEvents(request);
    bus.publish(opening());
    if (prompt === 'finish') {
      for (const token of FINISH_TOKENS) bus.publish(status(TaskState.TASK_STATE_WORKING, token));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, FINISH_ANSWER));
    } else if (prompt === 'code') {
      for (const token of CODE_TOKENS) bus.publish(status(TaskState.TASK_STATE_WORKING, token));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    } else if (prompt === 'cumulative') {
      for (const end of CUMULATIVE_PIECES.keys()) bus.publish(status(TaskState.TASK_STATE_WORKING, CUMULATIVE_PIECES.slice(0, end + 1).join('')));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    } else if (prompt === 'cumulative-lists') {
      for (const lines of CUMULATIVE_LISTS) {
        for (const end of lines.keys()) bus.publish(status(TaskState.TASK_STATE_WORKING, lines.slice(0, end + 1).join('')));
      }
      bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    } else if (RUNNING[prompt]) {
      const { tokens, closing } = RUNNING[prompt];
      const running = randomUUID();
      for (const token of tokens) bus.publish(status(TaskState.TASK_STATE_WORKING, token, running));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, closing, running));
    } else if (prompt === 'slow') {
      bus.publish(status(TaskState.TASK_STATE_WORKING, SLOW_PROGRESS));
      // Long enough for the test to cancel it; the SDK ends the stream on the canceled status.
      const wait = new AbortController();
      this.waits.set(taskId, wait);
      await sleep(5_000, undefined, { signal: wait.signal }).catch(() => undefined);
    }
  };

  /** Canceled as many agents do it: the state alone, without a word of why. */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const contextId = this.contexts.get(taskId) ?? taskId;
    this.waits.get(taskId)?.abort();
    bus.publish(statusEvent(taskId, contextId, TaskState.TASK_STATE_CANCELED));
  };
}

const CARD = {
  name: 'token-streamer',
  description: 'An a2a-js 1.x agent that streams its answer token by token.',
  skill: {
    id: 'tokens',
    name: 'Tokens',
    description: 'finish, code, slow, running-new, running-whole, running-end, running-lower, cumulative, cumulative-lists',
  },
};

export const startTokenStreamer = (): Promise<RunningTestAgent> => startSdkTestAgent(CARD, new TokenStreamer());
