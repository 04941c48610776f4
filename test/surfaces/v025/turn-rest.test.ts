/**
 * The rest of an iac-code turn whose stream broke off, read from the task (turn-rest.ts): a file the
 * stream did not carry shows before the text after the tool that wrote it, however the reads fall.
 */
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../../src/model/index.js';
import { restCursor, restEvents, type TurnSoFar } from '../../../src/surfaces/v025/turn-rest.js';

const agent = (text: string, messageId = 'T-message'): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
const FILE = { artifactId: 'A', name: 'main.tf', parts: [{ text: 'resource "alicloud_vpc" "main" {}\n' }] };
const BEFORE = ['好的，', '我来创建', 'VPC模板。'];

/** What the events say, in order: a message's text, `[file]`, or the final state. */
const told = (events: StreamResponse[]): string[] =>
  events.map((event) =>
    'artifactUpdate' in event
      ? '[file]'
      : 'statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_WORKING'
        ? (event.statusUpdate.status.message?.parts[0]?.text ?? '')
        : `[${'statusUpdate' in event ? event.statusUpdate.status.state : '?'}]`,
  );

describe('restEvents: the rest of an iac-code turn after its stream broke off before the tool call', () => {
  const turn: TurnSoFar = { sent: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '帮我创建VPC模板' }] }, passed: BEFORE };
  // The first read: the tool wrote the file and the text after it has begun (its latest chunk on the status).
  const working: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_WORKING', message: agent('写好。') },
    history: [...BEFORE.map((text) => agent(text)), agent('模板已')],
    artifacts: [FILE],
  };
  // The turn's end: the text after the tool call, then iac-code's restatement of it (`<taskId>-2`).
  const ended: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_INPUT_REQUIRED' },
    history: [...BEFORE.map((text) => agent(text)), agent('模板已'), agent('写好。'), agent('模板已写好。', 'T-2')],
    artifacts: [FILE],
  };

  it('a file first read while the task works: shown at the end, before the text after it', () => {
    const first = restEvents(working, restCursor(working, turn), turn, undefined);
    const last = restEvents(ended, first.cursor, turn, undefined);
    expect([...told(first.events), ...told(last.events)]).toEqual(['[file]', '模板已', '写好。', '[TASK_STATE_INPUT_REQUIRED]']);
  });

  it('a file the stream carried before the break holds nothing back', () => {
    const carried = { ...turn, passedFiles: ['A'] };
    const first = restEvents(working, restCursor(working, carried), carried, undefined);
    expect(told(first.events)).toEqual(['模板已', '[file]']);
  });
});

describe('restCursor: where the rest starts when the stream cut the text otherwise than the task', () => {
  // The iac-code adapter tells the end of a message that could begin the workspace's path (`/s`) as a chunk
  // of its own when a tool call ends the message, and drops it when the stream breaks while it holds it
  // (upstream/iac-code/workspace-path-events.ts); the task's history keeps it in the message it ends.
  const sent: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '帮我创建VPC模板' }] };
  const toolRunning: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' }, history: [agent('第一步 /s')] };
  const ended: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_INPUT_REQUIRED' },
    history: [agent('第一步 /s'), agent('第二句。'), agent('第三句。'), agent('第二句。第三句。', 'T-2')],
  };
  const rest = (passed: string[]): string[] => {
    const turn: TurnSoFar = { sent, passed };
    const first = restEvents(toolRunning, restCursor(toolRunning, turn), turn, undefined);
    const last = restEvents(ended, first.cursor, turn, undefined);
    return [...told(first.events), ...told(last.events)];
  };

  it('the held end told as a message of its own: the rest starts after the message it ends', () => {
    expect(rest(['第一步 ', '/s'])).toEqual(['第二句。', '第三句。', '[TASK_STATE_INPUT_REQUIRED]']);
  });

  it('the held end dropped by the break: the rest starts with it', () => {
    expect(rest(['第一步 '])).toEqual(['/s', '第二句。', '第三句。', '[TASK_STATE_INPUT_REQUIRED]']);
  });

  it('texts that differ from the task’s: counted as before', () => {
    expect(rest(['something else'])).toEqual(['第二句。', '第三句。', '[TASK_STATE_INPUT_REQUIRED]']);
  });
});
