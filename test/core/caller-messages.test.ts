/**
 * The agent's Task over the gateway's record (caller-messages.ts): the user's messages the agent left out of
 * its history (an a2a-js 0.2.5 agent never stores a follow-up) are put back where they were said; the agent's
 * own messages and order stand; a history cut by historyLength keeps a right tail.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordedWithFollowUp, withCallerMessagesKept } from '../../src/core/task-registry/caller-messages.js';
import { withHistoryLength, type Message, type Task } from '../../src/model/index.js';

const user = (id: string): Message => ({ messageId: id, role: 'ROLE_USER', parts: [{ text: id }] });
const agent = (id: string): Message => ({ messageId: id, role: 'ROLE_AGENT', parts: [{ text: id }] });
const task = (history: Message[] | undefined): Task => ({
  id: 't',
  status: { state: 'TASK_STATE_COMPLETED' },
  ...(history ? { history } : {}),
});
const ids = (answer: Task): string[] => (answer.history ?? []).map((message) => message.messageId);

describe('withCallerMessagesKept', () => {
  it("a 0.2.5 agent's task that asked twice: each answer back after its question, the reply last", () => {
    const answer = task([user('ask'), agent('q1'), agent('q2'), agent('reply')]);
    const recorded = [user('ask'), agent('q1'), user('a1'), agent('q2'), user('a2')];
    expect(ids(withCallerMessagesKept(answer, recorded))).toEqual(['ask', 'q1', 'a1', 'q2', 'a2', 'reply']);
  });

  it('an answer that holds every recorded message is the answer itself, its order the agent’s', () => {
    const answer = task([user('ask'), agent('q1'), user('a1'), agent('reply')]);
    expect(withCallerMessagesKept(answer, [user('ask'), user('a1'), agent('q1')])).toBe(answer);
    expect(withCallerMessagesKept(answer, undefined)).toBe(answer);
  });

  it('an agent message the agent left out stays out, and so does a user message with nothing the agent holds before it', () => {
    const answer = task([agent('q1'), agent('reply')]);
    const recorded = [user('ask'), agent('q1'), agent('status-said-once'), user('a1')];
    // An agent that never shows its task's opening message (iac-code) is answered as it answers.
    expect(ids(withCallerMessagesKept(answer, recorded))).toEqual(['q1', 'a1', 'reply']);
    const bare = task(undefined);
    expect(withCallerMessagesKept(bare, [user('ask'), agent('q1')])).toBe(bare);
  });

  it('an agent that stores the caller’s message under an id of its own shows it once, where it holds it', () => {
    const restated = (id: string, text: string): Message => ({ ...user(id), parts: [{ text }] });
    const answer = task([user('ask'), agent('q1'), restated('agents-a1', 'a1'), agent('q2'), agent('reply')]);
    const recorded = [user('ask'), agent('q1'), user('a1'), agent('q2'), user('a2')];
    expect(ids(withCallerMessagesKept(answer, recorded))).toEqual(['ask', 'q1', 'agents-a1', 'q2', 'a2', 'reply']);
    // The same words said again later, the agent holding only that: the earlier ones are put back where they were said.
    const later = task([user('ask'), agent('q1'), agent('q2'), restated('agents-a3', 'a1'), agent('reply')]);
    expect(ids(withCallerMessagesKept(later, [user('ask'), agent('q1'), user('a1'), agent('q2')]))).toEqual([
      'ask',
      'q1',
      'a1',
      'q2',
      'agents-a3',
      'reply',
    ]);
  });

  it('a message recorded twice (a retried follow-up) is kept once', () => {
    const answer = task([user('ask'), agent('q1')]);
    expect(ids(withCallerMessagesKept(answer, [user('ask'), agent('q1'), user('a1'), user('a1')]))).toEqual(['ask', 'q1', 'a1']);
  });

  it('a follow-up goes right after the question the record held when it was sent, its history before that', () => {
    const asked: Task = { id: 't', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agent('q1') }, history: [user('ask')] };
    const answer = task([user('ask'), agent('q1'), agent('reply')]);
    const said = recordedWithFollowUp(asked, user('a1'));
    expect(ids(withCallerMessagesKept(answer, asked.history, said))).toEqual(['ask', 'q1', 'a1', 'reply']);
    const unasked: Task = { id: 't', status: { state: 'TASK_STATE_WORKING' }, history: [user('ask'), agent('q1')] };
    expect(ids(withCallerMessagesKept(answer, unasked.history, recordedWithFollowUp(unasked, user('a1'))))).toEqual(['ask', 'q1', 'a1', 'reply']);
  });

  it('an agent that holds every message, the follow-up and its question too, gets its own Task back', () => {
    const asked: Task = { id: 't', status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agent('q1') }, history: [user('ask')] };
    const answer = task([user('ask'), agent('q1'), user('a1'), agent('reply')]);
    expect(withCallerMessagesKept(answer, asked.history, recordedWithFollowUp(asked, user('a1')))).toBe(answer);
    // Cut by historyLength: the messages before the cut are not the agent's to hold.
    const cut = task([user('a1'), agent('reply')]);
    expect(withCallerMessagesKept(cut, asked.history, recordedWithFollowUp(asked, user('a1')))).toBe(cut);
  });

  it('an agent that reuses its message ids in every turn (iac-code) is matched turn by turn, whole or cut', () => {
    // iac-code: every chunk of a turn under `<taskId>-message`, the final text under `<taskId>-2`, in every turn;
    // the follow-up stored, the opening message never shown.
    const said = (id: string, text: string): Message => ({ ...agent(id), parts: [{ text }] });
    const turn = (n: number) => [said('t-message', `chunk ${n}a`), said('t-message', `chunk ${n}b`), said('t-2', `final ${n}`)];
    const recorded = [user('one'), ...turn(1), user('two'), ...turn(2)];
    const agentHistory = recorded.slice(1);
    const whole = task(agentHistory);
    expect(withCallerMessagesKept(whole, recorded)).toBe(whole);
    for (const length of [1, 2, 3, 4, 5, 6]) {
      const cut = withHistoryLength(whole, length);
      expect(withHistoryLength(withCallerMessagesKept(cut, recorded), length)).toEqual(cut);
    }
    // The record behind the agent (its second turn unseen): the agent's history as it is.
    const ahead = task([...agentHistory, user('three'), ...turn(3)]);
    expect(withCallerMessagesKept(ahead, recorded)).toEqual(ahead);
  });

  // A transcript of unique messages; the agent's history is it without some of the user's messages, the record
  // a prefix of it (the record may be behind the agent, never ahead of it).
  const transcript = fc
    .array(fc.record({ fromUser: fc.boolean(), agentLacks: fc.boolean() }), { maxLength: 12 })
    .chain((said) =>
      fc.record({ said: fc.constant(said), recordedUpTo: fc.nat(said.length), cut: fc.nat(said.length + 1), split: fc.nat(said.length) }),
    );

  it('gives the transcript back, and cut to any historyLength, its tail', () => {
    fc.assert(
      fc.property(transcript, ({ said, recordedUpTo, cut, split }) => {
        const messages = said.map((entry, index) => (entry.fromUser ? user(`u${index}`) : agent(`g${index}`)));
        const agentHistory = messages.filter((_, index) => !(said[index]!.fromUser && said[index]!.agentLacks));
        const recorded = messages.slice(0, recordedUpTo);
        // What the agent holds, plus the user's messages the record holds after one the agent holds.
        const firstHeld = messages.findIndex((message) => agentHistory.includes(message));
        const expected = messages.filter(
          (message, index) => agentHistory.includes(message) || (firstHeld >= 0 && firstHeld < index && index < recordedUpTo),
        );
        const answer = task(agentHistory);
        const kept = withCallerMessagesKept(answer, recorded);
        expect(ids(kept)).toEqual(expected.map((message) => message.messageId));
        // Nothing to put back: the agent's own Task. Recorded in two runs (a follow-up's): the same.
        if (expected.length === agentHistory.length) expect(kept).toBe(answer);
        const runs = withCallerMessagesKept(answer, recorded.slice(0, split), recorded.slice(split));
        expect(ids(runs)).toEqual(ids(kept));
        if (cut === 0) return;
        const cutAnswer = withHistoryLength(task(agentHistory), cut);
        expect(ids(withHistoryLength(withCallerMessagesKept(cutAnswer, recorded), cut))).toEqual(
          expected.slice(-cut).map((message) => message.messageId),
        );
      }),
      { numRuns: 1_000 },
    );
  });
});
