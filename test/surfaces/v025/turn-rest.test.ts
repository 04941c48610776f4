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
