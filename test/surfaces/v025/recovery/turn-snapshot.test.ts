/**
 * What a turn's broken stream missed, told from the Task a resubscription opens with (turn-snapshot.ts):
 * the missed messages past those the caller read, the turn's new files where their place is certain, and
 * the latest status update whole unless the caller saw it.
 */
import { describe, expect, it } from 'vitest';
import type { Artifact, Message, StreamResponse, Task, TaskStatusUpdateEvent } from '../../../../src/model/index.js';
import { latestStatus, sameUpdate, snapshotGap } from '../../../../src/surfaces/v025/recovery/turn-snapshot.js';
import type { TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';

const agent = (text: string, messageId = 'T-message'): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
const SENT: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '帮我创建VPC模板' }] };
const FILE: Artifact = { artifactId: 'A', name: 'main.tf', parts: [{ text: 'resource "alicloud_vpc" "main" {}\n' }] };
const EARLIER: Artifact = { artifactId: 'E', name: 'old.tf', parts: [{ text: '# an earlier turn\n' }] };
const SESSION = { iacCodeSessionId: 's-1' };
const tool = (fields: Record<string, unknown>) => ({ iac_code: { ...SESSION, tool: fields } });
const STARTED = tool({ status: 'started', name: 'write_file', toolUseId: 'tu-1' });
const COMPLETED = tool({ status: 'completed', name: 'write_file', toolUseId: 'tu-1', artifact: { artifactId: 'A', filename: 'main.tf' } });
const USAGE = { iac_code: { ...SESSION, usage: { totalTokens: 15 } } };

/** A task iac-code keeps mid-turn: its history, the latest status update (its message and metadata), its files. */
function task(
  history: Message[],
  latest: { state?: Task['status']['state']; message?: Message; metadata?: Record<string, unknown> } = {},
  artifacts?: Artifact[],
): Task {
  const status = { state: latest.state ?? 'TASK_STATE_WORKING', ...(latest.message ? { message: latest.message } : {}) };
  return {
    id: 'T',
    contextId: 'C',
    status,
    history: [SENT, ...history],
    ...(latest.metadata ? { metadata: latest.metadata } : {}),
    ...(artifacts ? { artifacts } : {}),
  };
}

const turnOf = (passed: string[], extra: Partial<TurnSoFar> = {}): TurnSoFar => ({ sent: SENT, passed, ...extra });

/** What the events say, in order: a working message's text, `[file <id>]`, or `[<state> <what iac-code said>]`. */
const told = (events: StreamResponse[]): string[] =>
  events.map((event) => {
    if ('artifactUpdate' in event) return `[file ${event.artifactUpdate.artifact.artifactId}]`;
    if (!('statusUpdate' in event)) return '[?]';
    const { status, metadata } = event.statusUpdate;
    const text = status.message?.parts.map((part) => part.text ?? '').join('');
    if (status.state === 'TASK_STATE_WORKING' && text !== undefined && metadata === undefined) return text;
    const said = metadata?.iac_code ? Object.keys(metadata.iac_code).filter((key) => key !== 'iacCodeSessionId') : [];
    return `[${status.state}${text === undefined ? '' : ` ${text}`}${said.length ? ` ${said.join(',')}` : ''}]`;
  });

describe('snapshotGap: the messages the broken stream missed', () => {
  const read = ['好的，', '我来创建'];
  it.each([
    [0, [], ['[TASK_STATE_WORKING tool]']],
    [1, ['VPC模板。'], ['VPC模板。', '[TASK_STATE_WORKING tool]']],
    [2, ['VPC模板。', '先写main.tf。'], ['VPC模板。', '先写main.tf。', '[TASK_STATE_WORKING tool]']],
  ])('%i missed, then the latest update (a tool call) the caller did not see', (_count, missed, expected) => {
    const snapshot = task(
      [...read, ...missed].map((text) => agent(text)),
      { metadata: STARTED },
    );
    const gap = snapshotGap(snapshot, turnOf(read), undefined);
    expect(told(gap.events)).toEqual(expected);
    expect(gap).toMatchObject({ ended: false, placed: true });
  });

  it('the latest chunk, on the status, is missed too', () => {
    const snapshot = task([agent('好的，')], { message: agent('我来创建') });
    const gap = snapshotGap(snapshot, turnOf(['好的，']), undefined);
    expect(told(gap.events)).toEqual(['我来创建']);
  });

  it('the latest chunk the caller read is not repeated', () => {
    const snapshot = task([agent('好的，')], { message: agent('我来创建') });
    expect(snapshotGap(snapshot, turnOf(['好的，', '我来创建']), undefined).events).toEqual([]);
  });

  it('a message the stream told in two (a held end of text told on its own): the rest of it, not the next message', () => {
    // The iac-code adapter's chunk of what it held (upstream/iac-code/workspace-path-events.ts): the history has one message.
    const snapshot = task([agent('第一步 /s'), agent('第二句。')], { metadata: USAGE });
    expect(told(snapshotGap(snapshot, turnOf(['第一步 ', '/s']), undefined).events)).toEqual(['第二句。', '[TASK_STATE_WORKING usage]']);
    // The stream broke while the end was held: the caller read the start of the message only.
    expect(told(snapshotGap(snapshot, turnOf(['第一步 ']), undefined).events)).toEqual(['/s', '第二句。', '[TASK_STATE_WORKING usage]']);
  });

  it('a message on the status that the caller read the start of: the rest of it', () => {
    const snapshot = task([agent('好的，')], { message: agent('我来创建VPC') });
    expect(told(snapshotGap(snapshot, turnOf(['好的，', '我来']), undefined).events)).toEqual(['创建VPC']);
  });
});

describe('snapshotGap: the latest status update', () => {
  const history = [agent('好的，')];
  const seen = (metadata: Record<string, unknown>): TaskStatusUpdateEvent => latestStatus(task(history, { metadata }));

  it('is not repeated when it is the last update the caller saw', () => {
    const snapshot = task(history, { metadata: STARTED });
    expect(snapshotGap(snapshot, turnOf(['好的，'], { lastStatus: seen(STARTED) }), undefined).events).toEqual([]);
  });

  it('is shown when the caller saw another one', () => {
    const snapshot = task(history, { metadata: STARTED });
    const gap = snapshotGap(snapshot, turnOf(['好的，'], { lastStatus: seen(USAGE) }), undefined);
    expect(gap.events).toEqual([{ statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' }, metadata: STARTED } }]);
  });

  it('sameUpdate: the same status and iac-code metadata, whatever else the metadata holds', () => {
    const update = seen(STARTED);
    expect(sameUpdate(update, { ...update, metadata: { ...STARTED, other: 1 } })).toBe(true);
    expect(sameUpdate(update, seen(COMPLETED))).toBe(false);
    expect(sameUpdate(update, { ...update, status: { state: 'TASK_STATE_INPUT_REQUIRED' } })).toBe(false);
    expect(sameUpdate(update, undefined)).toBe(false);
  });

  it('latestStatus: the task as the update that set its status', () => {
    expect(latestStatus({ id: 'T', status: { state: 'TASK_STATE_WORKING' } })).toEqual({
      taskId: 'T',
      contextId: 'T',
      status: { state: 'TASK_STATE_WORKING' },
    });
  });
});

describe('snapshotGap: a new file', () => {
  it('with no missed message before the latest update: after the messages, placed', () => {
    const snapshot = task([agent('好的，')], { metadata: STARTED }, [FILE]);
    const gap = snapshotGap(snapshot, turnOf(['好的，']), undefined);
    expect(told(gap.events)).toEqual(['[file A]', '[TASK_STATE_WORKING tool]']);
    expect(gap.placed).toBe(true);
  });

  it('whose latest update is the end of the tool call that wrote it: after the missed messages, placed', () => {
    const snapshot = task([agent('好的，'), agent('我来写模板。')], { metadata: COMPLETED }, [FILE]);
    const gap = snapshotGap(snapshot, turnOf(['好的，']), undefined);
    expect(told(gap.events)).toEqual(['我来写模板。', '[file A]', '[TASK_STATE_WORKING tool]']);
    expect(gap.placed).toBe(true);
  });

  it('after missed messages otherwise: its place cannot be told', () => {
    const snapshot = task([agent('好的，'), agent('模板已')], { message: agent('写好。') }, [FILE]);
    expect(snapshotGap(snapshot, turnOf(['好的，']), undefined).placed).toBe(false);
    const afterUsage = task([agent('好的，'), agent('模板已写好。')], { metadata: USAGE }, [FILE]);
    expect(snapshotGap(afterUsage, turnOf(['好的，']), undefined).placed).toBe(false);
  });

  it('one the stream carried is not new', () => {
    const snapshot = task([agent('好的，'), agent('模板已写好。')], { metadata: USAGE }, [FILE]);
    const gap = snapshotGap(snapshot, turnOf(['好的，'], { passedFiles: ['A'] }), undefined);
    expect(told(gap.events)).toEqual(['模板已写好。', '[TASK_STATE_WORKING usage]']);
    expect(gap.placed).toBe(true);
  });

  it('one the stream carried in part, that the agent went on with (its chunks appended to it in the task): only the rest, appended', () => {
    const head = { text: 'resource "alicloud_vpc" "main" {\n' };
    const rest = [{ text: '  vpc_name = "main"\n' }, { text: '}\n' }];
    const grown: Artifact = { artifactId: 'A', name: 'main.tf', parts: [head, ...rest] };
    const snapshot = task([agent('好的，')], { metadata: USAGE }, [grown]);
    const gap = snapshotGap(snapshot, turnOf(['好的，'], { passedFiles: ['A'], shownFiles: new Map([['A', [head]]]) }), undefined);
    expect(told(gap.events)).toEqual(['[file A]', '[TASK_STATE_WORKING usage]']);
    expect(gap.events[0]).toMatchObject({ artifactUpdate: { append: true, artifact: { artifactId: 'A', name: 'main.tf', parts: rest } } });
    expect(gap.placed).toBe(true);
    // As the caller holds it: nothing; written anew since (another start): whole.
    const whole = snapshotGap(snapshot, turnOf(['好的，'], { passedFiles: ['A'], shownFiles: new Map([['A', grown.parts]]) }), undefined);
    expect(told(whole.events)).toEqual(['[TASK_STATE_WORKING usage]']);
    const anew = snapshotGap(snapshot, turnOf(['好的，'], { passedFiles: ['A'], shownFiles: new Map([['A', [{ text: '# old\n' }]]]) }), undefined);
    expect(anew.events[0]).toMatchObject({ artifactUpdate: { artifact: grown } });
    expect(anew.events[0]).not.toHaveProperty('artifactUpdate.append');
    // Whose start the stream did not carry (chunks appended to a file it did not begin): left to the live chunks.
    const unknown = snapshotGap(snapshot, turnOf(['好的，'], { passedFiles: ['A'], shownFiles: new Map([['A', undefined]]) }), undefined);
    expect(told(unknown.events)).toEqual(['[TASK_STATE_WORKING usage]']);
  });

  it('the artifacts the task had before the turn are not counted as new', () => {
    const snapshot = task([agent('好的，'), agent('模板已写好。')], { metadata: USAGE }, [EARLIER]);
    const gap = snapshotGap(snapshot, turnOf(['好的，']), [EARLIER]);
    expect(told(gap.events)).toEqual(['模板已写好。', '[TASK_STATE_WORKING usage]']);
    expect(gap.placed).toBe(true);
  });
});

describe('snapshotGap: a finished turn', () => {
  it('is read as restEvents reads it: the file before the restated text, that text once, the final status', () => {
    const snapshot = task([agent('好的，'), agent('模板已'), agent('写好。'), agent('模板已写好。', 'T-2')], { state: 'TASK_STATE_INPUT_REQUIRED' }, [
      EARLIER,
      FILE,
    ]);
    const gap = snapshotGap(snapshot, turnOf(['好的，']), [EARLIER]);
    expect(told(gap.events)).toEqual(['[file A]', '模板已', '写好。', '[TASK_STATE_INPUT_REQUIRED]']);
    expect(gap).toMatchObject({ ended: true, placed: true });
  });
});

describe('snapshotGap: a chunk iac-code said twice in a row (one id a turn)', () => {
  it('is shown twice: the history keeps the first, the status the second', () => {
    const snapshot: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: agent('哈') },
      history: [SENT, agent('好的'), agent('哈')],
    };
    const gap = snapshotGap(snapshot, { sent: SENT, passed: ['好的'] }, undefined);
    const texts = gap.events.map((event) => ('statusUpdate' in event ? (event.statusUpdate.status.message?.parts[0]?.text ?? '') : ''));
    expect(texts.join('')).toBe('哈哈');
  });
});
