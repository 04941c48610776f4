/**
 * iac-code's refusal of a message while another turn of its context runs (a FAILED status whose only words are "Task
 * is already working."), a new task's or a follow-up's: a Bailian user reads that the agent is still at work on their
 * previous message, in their language, in message/stream, message/send and tasks/get alike. Only there: the same words
 * after the turn said something (iac-code's FAILED put into a running task, read by that turn's own stream), inside a
 * longer failure, or in an answer that did not fail, read as the agent said them.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task } from '../../../../src/model/index.js';
import { withAgentFailureTold } from '../../../../src/surfaces/v025/reply/agent-failure.js';
import { facadeWords } from '../../../../src/surfaces/v025/reply/index.js';
import { options, run, shape, shownAlike, status, submitted } from './support.js';

const BUSY = 'Task is already working.';
const ZH = facadeWords('zh');
/** A turn the facade sent as a new task, in Chinese. */
const newTask = options(undefined, { words: ZH, followsUp: false });
const refused = status('TASK_STATE_FAILED', BUSY, {}, 'T-4');

describe("iac-code's refusal of a new task while its context is busy", () => {
  it('reads as the turn in progress, in the turn language, failed', () => {
    expect(shownAlike([submitted, refused], newTask)).toBe(ZH.turnInProgress);
    expect(shape(run([submitted, refused], newTask)).at(-1)).toBe('status:failed:final');
    expect(shownAlike([submitted, refused], options(undefined, { words: facadeWords('ja'), followsUp: false }))).toBe(
      facadeWords('ja').turnInProgress,
    );
    // A blocking answer: the failed Task alone.
    const task: StreamResponse = {
      task: {
        id: 'T',
        contextId: 'C',
        status: { state: 'TASK_STATE_FAILED', message: { messageId: 'T-4', role: 'ROLE_AGENT', parts: [{ text: BUSY }] } },
        history: [{ messageId: 'u', role: 'ROLE_USER', parts: [{ text: '再加一个安全组' }] }],
      },
    };
    expect(shownAlike([task], newTask)).toBe(ZH.turnInProgress);
  });

  it('reads as the agent said it anywhere else', () => {
    // The running turn's own stream, which the refusal of a message into its task ended after its words.
    expect(shownAlike([submitted, status('TASK_STATE_WORKING', '正在创建 VPC'), refused], newTask)).toBe(`正在创建 VPC\n${BUSY}`);
    // Longer words that hold the refusal's, and the same words in an answer.
    const longer = `Stack update refused: ${BUSY}`;
    expect(shownAlike([submitted, status('TASK_STATE_FAILED', longer)], newTask)).toBe(longer);
    expect(shownAlike([submitted, status('TASK_STATE_COMPLETED', BUSY)], newTask)).toBe(BUSY);
  });

  it('a follow-up refused so reads the same: its stream opened with the waiting task, or with the refusal alone', () => {
    const followUp = options(undefined, { words: ZH, followsUp: true });
    // The task as the gateway recorded it, waiting for input after its earlier turn, then iac-code's refusal.
    const waiting: StreamResponse = {
      task: {
        id: 'T',
        contextId: 'C',
        status: { state: 'TASK_STATE_INPUT_REQUIRED' },
        history: [
          { messageId: 'u1', role: 'ROLE_USER', parts: [{ text: '先创建一个VPC' }] },
          { messageId: 'T-message', role: 'ROLE_AGENT', parts: [{ text: '已创建 VPC' }] },
          { messageId: 'u2', role: 'ROLE_USER', parts: [{ text: '再加一个安全组' }] },
        ],
        artifacts: [{ artifactId: 'a', name: 'main.tf', parts: [{ text: 'resource "alicloud_vpc" "v" {}' }] }],
      },
    };
    expect(shownAlike([waiting, refused], followUp)).toBe(ZH.turnInProgress);
    expect(shape(run([waiting, refused], followUp)).at(-1)).toBe('status:failed:final');
    expect(shownAlike([refused], followUp)).toBe(ZH.turnInProgress);
    // Its words after the follow-up's own are the refusal put into its running turn: read as said.
    expect(shownAlike([waiting, status('TASK_STATE_WORKING', '正在添加'), refused], followUp)).toBe(`正在添加\n${BUSY}`);
  });

  it('tasks/get: only a task that holds nothing of its agent but the refusal', () => {
    const failed = { messageId: 'T-4', role: 'ROLE_AGENT' as const, parts: [{ text: BUSY }] };
    const asked = { messageId: 'u', role: 'ROLE_USER' as const, parts: [{ text: '再加一个安全组' }] };
    const bare: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_FAILED', message: failed }, history: [asked, failed] };
    const told = withAgentFailureTold(bare, ZH);
    expect(told.status.message?.parts).toEqual([{ text: ZH.turnInProgress }]);
    expect(told.history?.at(-1)?.parts).toEqual([{ text: ZH.turnInProgress }]);
    // A task of earlier turns: their answer, their file.
    const answered = { messageId: 'T-final', role: 'ROLE_AGENT' as const, parts: [{ text: '已创建 VPC' }] };
    expect(withAgentFailureTold({ ...bare, history: [asked, answered, asked, failed] }, ZH)).toEqual({
      ...bare,
      history: [asked, answered, asked, failed],
    });
    const withFile: Task = { ...bare, artifacts: [{ artifactId: 'a', parts: [{ text: 'main.tf' }] }] };
    expect(withAgentFailureTold(withFile, ZH)).toBe(withFile);
  });
});
