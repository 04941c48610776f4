/**
 * The rest of an iac-code turn whose stream broke off, read from the task (turn-rest.ts): a file the
 * stream did not carry shows before the text after the tool that wrote it, however the reads fall.
 */
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../../../src/model/index.js';
import { restCursor, restEvents, type TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';

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

describe('restEvents: a file written in appended chunks, read in part before the break', () => {
  const chunks = Array.from({ length: 8 }, (_, at) => ({ text: `chunk${at} ` }));
  const file = (parts: number) => ({ artifactId: 'A', name: 'reply', parts: chunks.slice(0, parts) });
  const sent: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '请部署' }] };
  const turn: TurnSoFar = { sent, passed: [], passedFiles: ['A'], shownFiles: new Map([['A', chunks.slice(0, 3)]]) };
  const task = (parts: number, state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED'): Task => ({
    id: 'T',
    contextId: 'C',
    status: { state },
    history: [sent],
    artifacts: [file(parts)],
  });
  /** The text of the file's events, as a reader appends it. */
  const fileText = (events: StreamResponse[]): string =>
    events.flatMap((event) => ('artifactUpdate' in event ? event.artifactUpdate.artifact.parts.map((part) => part.text) : [])).join('');

  it('the rest goes on after the chunks read, each chunk once, however the reads fall', () => {
    const working = task(5, 'TASK_STATE_WORKING');
    const first = restEvents(working, restCursor(working, turn), turn, undefined);
    const ended = task(8, 'TASK_STATE_COMPLETED');
    const last = restEvents(ended, first.cursor, turn, undefined);
    expect(fileText(first.events)).toBe('chunk3 chunk4 ');
    expect(fileText(last.events)).toBe('chunk5 chunk6 chunk7 ');
    expect([...first.events, ...last.events].every((event) => !('artifactUpdate' in event) || event.artifactUpdate.append === true)).toBe(true);
  });

  it('a file read whole is not shown again', () => {
    const whole: TurnSoFar = { ...turn, shownFiles: new Map([['A', chunks]]) };
    const ended = task(8, 'TASK_STATE_COMPLETED');
    expect(fileText(restEvents(ended, restCursor(ended, whole), whole, undefined).events)).toBe('');
  });

  it('a file the agent wrote anew since is shown whole', () => {
    const rewritten = task(8, 'TASK_STATE_COMPLETED');
    rewritten.artifacts = [{ artifactId: 'A', name: 'reply', parts: [{ text: 'new' }] }];
    expect(fileText(restEvents(rewritten, restCursor(rewritten, turn), turn, undefined).events)).toBe('new');
  });
});
