/**
 * The agent's Task over the gateway's record (chunk-runs.ts): the chunks of one message id the record folded as
 * they passed stand for the one message of that id an a2a-js 1.x agent's store keeps (its first chunk); an id the
 * record holds in more than one run, or a run whose first chunk the record lost, leaves the agent's Task as it is.
 */
import { describe, expect, it } from 'vitest';
import { withChunksKept } from '../../src/core/task-registry/chunk-runs.js';
import { withCallerMessagesKept } from '../../src/core/task-registry/caller-messages.js';
import type { Message, Task } from '../../src/model/index.js';

const said = (role: Message['role'], id: string, text: string): Message => ({ messageId: id, role, parts: [{ text }] });
const user = (text: string): Message => said('ROLE_USER', `u-${text}`, text);
const chunk = (text: string, id = 'reply'): Message => said('ROLE_AGENT', id, text);
const task = (history: Message[]): Task => ({ id: 't', status: { state: 'TASK_STATE_COMPLETED' }, history });
const texts = (answer: Task): string[] => (answer.history ?? []).map((message) => message.parts.map((part) => part.text).join(''));

describe('withChunksKept', () => {
  it("the agent's first chunk of a run stands for the run the record holds", () => {
    const answer = task([user('deploy'), chunk('已选择')]);
    const recorded = [user('deploy'), chunk('已选择'), chunk(' cn-hangzhou。'), chunk('部署完成。')];
    expect(texts(withChunksKept(answer, recorded))).toEqual(['deploy', '已选择', ' cn-hangzhou。', '部署完成。']);
    // Taken in over the record as every Task is (recording.ts, fold.ts).
    expect(texts(withCallerMessagesKept(answer, recorded))).toEqual(['deploy', '已选择', ' cn-hangzhou。', '部署完成。']);
  });

  it('an agent that keeps every chunk, or has no run recorded, is answered with its own Task', () => {
    const whole = task([user('deploy'), chunk('已选择'), chunk('部署完成。')]);
    expect(withChunksKept(whole, [user('deploy'), chunk('已选择'), chunk('部署完成。')])).toBe(whole);
    const answer = task([user('deploy'), chunk('已选择')]);
    expect(withChunksKept(answer, [user('deploy'), chunk('已选择')])).toBe(answer);
  });

  it('an id reused in two runs (iac-code), or a run whose first chunk the record lost, is left as the agent has it', () => {
    const answer = task([user('one'), chunk('a'), user('two')]);
    const reused = [user('one'), chunk('a'), chunk('b'), user('two'), chunk('c'), chunk('d')];
    expect(withChunksKept(answer, reused)).toBe(answer);
    const cut = task([user('deploy'), chunk('这')]);
    expect(withChunksKept(cut, [chunk('是'), chunk('一'), chunk('个')])).toBe(cut);
    // Cut at a later chunk that says what the first did: the record's front is no whole run.
    const dots = task([user('deploy'), chunk('.')]);
    expect(withChunksKept(dots, [chunk('.'), chunk('.'), chunk('done')])).toBe(dots);
  });

  it("a message the agent keeps otherwise than as the run's first chunk (the whole text) stays the agent's", () => {
    const answer = task([user('deploy'), chunk('已选择 cn-hangzhou。')]);
    expect(withChunksKept(answer, [user('deploy'), chunk('已选择'), chunk(' cn-hangzhou。')])).toBe(answer);
  });
});
