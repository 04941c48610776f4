/**
 * answerAsTask, which every older agent's client (0.2.5 and 0.3 JSON-RPC, 0.3 HTTP+JSON) reads a blocking answer
 * with. The real agents: test/e2e/upstreams/v025-answer-message.test.ts and v03-answer-message.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { A2AError, type Message, type Task } from '../../src/model/index.js';
import { answerAsTask, historyAsAsked } from '../../src/upstream/answered-message.js';

const answer: Message = { messageId: 'a', role: 'ROLE_AGENT', parts: [{ text: 'three VPCs' }], taskId: 't1', contextId: 'c1' };
const asked: Message = { messageId: 'q', role: 'ROLE_USER', parts: [{ text: 'how many VPCs?' }], taskId: 't1', contextId: 'c1' };
const completed = (history?: Message[]): Task => ({
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_COMPLETED', message: answer },
  ...(history ? { history } : {}),
});

describe('answerAsTask', () => {
  it('a Message of a task the agent keeps working: that task COMPLETED with the message', async () => {
    const working: Task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, history: [asked] };
    expect(await answerAsTask({ message: answer }, async () => working)).toEqual({ task: completed([asked]) });
  });

  it('an agent that cannot say how its task stands (not TaskNotFound): COMPLETED over the ids alone', async () => {
    const failing = async (): Promise<Task> => {
      throw A2AError.internal('the agent is restarting');
    };
    expect(await answerAsTask({ message: answer }, failing)).toEqual({ task: completed() });
  });

  it('a task the agent does not know (TaskNotFound), or a Message naming none: the Message stays', async () => {
    const unknown = async (id: string): Promise<Task> => {
      throw A2AError.taskNotFound(id);
    };
    expect(await answerAsTask({ message: answer }, unknown)).toEqual({ message: answer });
    const { taskId: _none, ...plain } = answer;
    expect(await answerAsTask({ message: plain }, unknown)).toEqual({ message: plain });
  });

  it('historyAsAsked cuts a task answer to the history asked for and leaves a Message alone', () => {
    expect(historyAsAsked({ task: completed([asked, answer]) }, 1)).toEqual({ task: completed([answer]) });
    expect(historyAsAsked({ message: answer }, 0)).toEqual({ message: answer });
  });
});
