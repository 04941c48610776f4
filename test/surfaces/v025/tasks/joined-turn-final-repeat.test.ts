/**
 * A caller joins an iac-code turn after its last chunk and before the `assistantFinal` update that restates the
 * text after its last tool call (joined-turn.ts). The working Task holds that chunk among its messages and the
 * tool's file after them (where the file came, the Task does not say): the restatement that follows live says
 * again what the snapshot showed, and a Bailian reader reads the turn's last words once.
 */
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../../../src/model/index.js';
import { joinedTurn } from '../../../../src/surfaces/v025/tasks/joined-turn.js';
import { collect } from '../../../support/collect.js';
import { readText, run } from '../reply/support.js';

const user = (text: string): Message => ({ messageId: 'u', role: 'ROLE_USER', parts: [{ text }] });
const said = (text: string, messageId = 'T-message'): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
const iacCode = (extra: Record<string, unknown>) => ({ iac_code: { ...extra, iacCodeSessionId: 's' } });
const update = (state: 'TASK_STATE_WORKING' | 'TASK_STATE_INPUT_REQUIRED', message?: Message, metadata = iacCode({})): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state, ...(message ? { message } : {}) }, metadata },
});
const file = { artifactId: 'f', name: 'main.tf', parts: [{ text: 'resource "alicloud_vpc" "main" {}\n' }] };

/** The working Task a caller joins on: the agent's messages so far, the status message last, the tool's file after them. */
const snapshotOf = (history: Message[], status: Message): Task => ({
  id: 'T',
  contextId: 'C',
  status: { state: 'TASK_STATE_WORKING', message: status },
  history: [user('Create a VPC'), ...history],
  artifacts: [file],
  metadata: iacCode({}),
});

async function joinedText(events: StreamResponse[]): Promise<string> {
  async function* source() {
    yield* events;
  }
  return readText(run(await collect(joinedTurn(source()))));
}

describe('joinedTurn: iac-code’s assistantFinal after a snapshot that holds its last words', () => {
  it('joined after the last chunk: the restatement that follows is not read again', async () => {
    const snapshot = snapshotOf([said('Planning the VPC. '), said('Writing it now. ')], said('Done.'));
    const live = [
      update('TASK_STATE_WORKING', undefined, iacCode({ usage: { totalTokens: 23 } })),
      update('TASK_STATE_WORKING', said('Done.', 'T-2'), iacCode({ assistantFinal: { complete: true } })),
      update('TASK_STATE_INPUT_REQUIRED'),
    ];
    const text = await joinedText([{ task: snapshot }, ...live]);
    expect(text.match(/Done\./g)).toHaveLength(1);
  });

  it('words said live after the snapshot, then restated: read once as well', async () => {
    const snapshot = snapshotOf([said('Planning the VPC. ')], said('Writing it now. '));
    const live = [
      update('TASK_STATE_WORKING', said('Done.')),
      update('TASK_STATE_WORKING', said('Done.', 'T-2'), iacCode({ assistantFinal: { complete: true } })),
      update('TASK_STATE_INPUT_REQUIRED'),
    ];
    const text = await joinedText([{ task: snapshot }, ...live]);
    expect(text.match(/Done\./g)).toHaveLength(1);
  });

  it('an assistantFinal that says what the snapshot did not (nothing streamed after the tool call): shown', async () => {
    const snapshot = snapshotOf([said('Planning the VPC. ')], said('Writing it now. '));
    const live = [
      update('TASK_STATE_WORKING', said('The VPC is ready.', 'T-2'), iacCode({ assistantFinal: { complete: true } })),
      update('TASK_STATE_INPUT_REQUIRED'),
    ];
    expect(await joinedText([{ task: snapshot }, ...live])).toMatch(/Writing it now\. [^]*The VPC is ready\.$/);
  });
});
