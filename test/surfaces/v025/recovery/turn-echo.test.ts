/**
 * The live events of a resubscription that repeat its snapshot (turn-echo.ts): dropped, since the snapshot's
 * gap already showed them (turn-snapshot.ts). A repeat taken for new shows twice; a new event taken for a
 * repeat is lost: so only what the snapshot holds past what the caller read, and only until the first event
 * that is not a repeat.
 */
import { describe, expect, it } from 'vitest';
import type { Artifact, Message, Part, StreamResponse, Task } from '../../../../src/model/index.js';
import { SnapshotEcho } from '../../../../src/surfaces/v025/recovery/turn-echo.js';
import type { TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';

const agent = (text: string, messageId: string): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
const SENT: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '帮我创建VPC模板' }] };
const SESSION = { iacCodeSessionId: 's-1' };
const STARTED = { iac_code: { ...SESSION, tool: { status: 'started', name: 'write_file', toolUseId: 'tu-1' } } };
const COMPLETED = { iac_code: { ...SESSION, tool: { status: 'completed', name: 'write_file', toolUseId: 'tu-1' } } };

const working = (message?: Message, metadata?: Record<string, unknown>): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_WORKING', ...(message ? { message } : {}) },
    ...(metadata ? { metadata } : {}),
  },
});
const chunk = (artifactId: string, parts: Part[], append?: boolean): StreamResponse => ({
  artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId, parts }, ...(append === undefined ? {} : { append }) },
});

/** Which of `events`, fed in order to one echo, it takes for repeats: those it never relays (what it still holds back at the end included). */
function repeats(snapshot: Task, turn: TurnSoFar, events: StreamResponse[]): boolean[] {
  const echo = new SnapshotEcho(snapshot, turn);
  const relayed = events.flatMap((event) => echo.pass(event));
  const repeat = events.map(() => true);
  for (const event of relayed) repeat[events.findIndex((fed, at) => fed === event && repeat[at])] = false;
  return repeat;
}

describe('SnapshotEcho: an a2a-js 1.x agent’s status messages, sent as the subscription listened', () => {
  // Its SDK keeps each status message in the history as it comes: the latest is both the history's last and the status's.
  const messages = [agent('好的，', 'a-1'), agent('我来创建', 'a-2'), agent('VPC模板。', 'a-3')];
  const snapshot: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_WORKING', message: messages[2]! },
    history: [SENT, ...messages],
  };
  const readFirst: TurnSoFar = { sent: SENT, passed: ['好的，'] };

  it('those the snapshot holds past what the caller read are repeats, each by its id and parts', () => {
    expect(repeats(snapshot, readFirst, [working(messages[1]), working(messages[2])])).toEqual([true, true]);
  });

  it('the live events may begin anywhere among them (what came before the subscription listened is in the snapshot only)', () => {
    expect(repeats(snapshot, readFirst, [working(messages[2])])).toEqual([true]);
  });

  it('a message the caller read before the snapshot is not a repeat, though the snapshot holds it', () => {
    expect(repeats(snapshot, readFirst, [working(messages[0])])).toEqual([false]);
  });

  it('a message with a known id and other parts is not a repeat', () => {
    expect(repeats(snapshot, readFirst, [working(agent('我来写', 'a-2'))])).toEqual([false]);
  });

  it('a message the snapshot holds before the one last matched is not a repeat: repeats come in the order the agent sent them', () => {
    expect(repeats(snapshot, readFirst, [working(messages[2]), working(messages[1])])).toEqual([true, false]);
  });

  it('the first event that is not a repeat ends repeat-taking for good: an event like a repeat after it is shown', () => {
    const next = agent('先写main.tf。', 'a-4');
    expect(repeats(snapshot, readFirst, [working(messages[1]), working(next), working(messages[2])])).toEqual([true, false, false]);
  });

  it('a file or an update the snapshot does not hold ends it too', () => {
    expect(repeats(snapshot, readFirst, [chunk('A', [{ text: 'x' }]), working(messages[1])])).toEqual([false, false]);
    expect(repeats(snapshot, readFirst, [working(undefined, STARTED), working(messages[1])])).toEqual([false, false]);
  });

  it('a caller that read everything: nothing the agent says is a repeat', () => {
    const readAll: TurnSoFar = { sent: SENT, passed: ['好的，', '我来创建', 'VPC模板。'] };
    expect(repeats(snapshot, readAll, [working(messages[2])])).toEqual([false]);
  });
});

describe('SnapshotEcho: the snapshot’s latest update without a message', () => {
  const snapshot: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_WORKING' },
    history: [SENT, agent('好的，', 'a-1')],
    metadata: STARTED,
  };
  const turn: TurnSoFar = { sent: SENT, passed: ['好的，'] };

  it('sent again (iac-code, as the subscription began): a repeat, whatever else the metadata holds', () => {
    expect(repeats(snapshot, turn, [working(undefined, STARTED)])).toEqual([true]);
    expect(repeats(snapshot, turn, [working(undefined, { ...STARTED, other: 1 })])).toEqual([true]);
  });

  it('another update (the tool call ended, another state) is not', () => {
    expect(repeats(snapshot, turn, [working(undefined, COMPLETED)])).toEqual([false]);
    const waiting: StreamResponse = {
      statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, metadata: STARTED },
    };
    expect(repeats(snapshot, turn, [waiting])).toEqual([false]);
  });

  it('an update with an agent message is told by its message, not taken for the latest update', () => {
    expect(repeats(snapshot, turn, [working(agent('我来', 'a-2'), STARTED)])).toEqual([false]);
  });
});

describe('SnapshotEcho: file chunks', () => {
  const FILE: Artifact = { artifactId: 'A', name: 'main.tf', parts: [{ text: 'resource "alicloud_vpc" "main" {\n' }, { text: '}\n' }] };
  const [head, tail] = FILE.parts as [Part, Part];
  const snapshot: Task = { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' }, history: [SENT], artifacts: [FILE] };
  const turn: TurnSoFar = { sent: SENT, passed: [] };

  it('the first chunk (not appended), then the next appended: each at its place in the snapshot’s file, repeats', () => {
    expect(repeats(snapshot, turn, [chunk('A', [head]), chunk('A', [tail], true)])).toEqual([true, true]);
  });

  it('the whole file in one chunk: a repeat', () => {
    expect(repeats(snapshot, turn, [chunk('A', FILE.parts)])).toEqual([true]);
  });

  it('a chunk not appended starts the file again: at the start, whatever came before', () => {
    expect(repeats(snapshot, turn, [chunk('A', [head]), chunk('A', [head])])).toEqual([true, true]);
  });

  it('an appended chunk past the snapshot’s end of the file is not a repeat', () => {
    expect(repeats(snapshot, turn, [chunk('A', FILE.parts), chunk('A', [{ text: '# more\n' }], true)])).toEqual([true, false]);
  });

  it('a chunk with other parts at that place is not a repeat', () => {
    expect(repeats(snapshot, turn, [chunk('A', [tail])])).toEqual([false]);
  });

  it('a start that the next chunk does not carry on to the file’s end was the file written anew: both shown', () => {
    // The SDK appends a chunk to the stored file, so the chunks sent as the subscription listened end where the
    // snapshot's file ends: "{" again, then "{" appended, is not the stored "{" "}".
    expect(repeats(snapshot, turn, [chunk('A', [head]), chunk('A', [head], true)])).toEqual([false, false]);
  });

  it('the end of a file begun before the subscription listened, sent as it listened: a repeat (not shown twice)', () => {
    expect(repeats(snapshot, turn, [chunk('A', [tail], true)])).toEqual([true]);
    expect(repeats(snapshot, turn, [chunk('A', [tail], true), chunk('A', [tail], true)])).toEqual([true, false]);
  });

  describe('an appended chunk that repeats a part inside the file', () => {
    const LINES: Artifact = { artifactId: 'A', parts: [{ text: 'a {\n' }, { text: '}\n' }, { text: 'b {\n' }, { text: '}\n' }, { text: '\n' }] };
    const file: Task = { ...snapshot, artifacts: [LINES] };
    const [, close, , , blank] = LINES.parts as [Part, Part, Part, Part, Part];

    it('held back while it may be a repeat; taken for one once the chunks after it reach the file’s end', () => {
      const echo = new SnapshotEcho(file, turn);
      expect(echo.pass(chunk('A', [close], true))).toEqual([]);
      expect(echo.pass(chunk('A', [blank], true))).toEqual([]);
      const next = chunk('A', [{ text: 'c {\n' }], true);
      expect(echo.pass(next)).toEqual([next]);
    });

    it('new, when the next event does not carry it on: relayed then, before that event, so nothing is lost', () => {
      const echo = new SnapshotEcho(file, turn);
      const again = chunk('A', [close], true);
      expect(echo.pass(again)).toEqual([]);
      const said = working(agent('写好了。', 'a-9'));
      expect(echo.pass(said)).toEqual([again, said]);
    });

    it('a chunk with no parts (a lone lastChunk) is relayed in its turn, and takes nothing for new', () => {
      const echo = new SnapshotEcho(file, turn);
      const empty: StreamResponse = {
        artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'A', parts: [] }, append: true, lastChunk: true },
      };
      expect(echo.pass(chunk('A', [close], true))).toEqual([]);
      expect(echo.pass(empty)).toEqual([]);
      expect(echo.pass(chunk('A', [blank], true))).toEqual([empty]);
      expect(repeats(file, turn, [empty])).toEqual([false]);
    });
  });

  describe('a file the agent sent again whole after its chunks, as the subscription listened (the store holds that whole)', () => {
    const whole: Artifact = { artifactId: 'A', parts: [{ text: 'resource "alicloud_vpc" "main" {\n}\n' }] };
    const resent: Task = { ...snapshot, artifacts: [whole] };
    const carried: TurnSoFar = { sent: SENT, passed: [], passedFiles: ['A'], shownFiles: new Map([['A', [head]]]) };

    it('its last chunk, then the whole: both repeats (the chunk said the end of the whole, held back until it came)', () => {
      expect(repeats(resent, carried, [chunk('A', [tail], true), chunk('A', whole.parts)])).toEqual([true, true]);
      expect(repeats(resent, turn, [chunk('A', [tail], true), chunk('A', whole.parts)])).toEqual([true, true]);
    });

    it('a chunk that says a piece of the whole, then something else: it was new, relayed before that', () => {
      const echo = new SnapshotEcho(resent, carried);
      const again = chunk('A', [tail], true);
      expect(echo.pass(again)).toEqual([]);
      const said = working(agent('写好了。', 'a-9'));
      expect(echo.pass(said)).toEqual([again, said]);
    });

    it('a chunk that says nothing of it past what the caller held is new at once', () => {
      expect(repeats(resent, carried, [chunk('A', [head], true)])).toEqual([false]);
    });
  });

  it('a chunk of a file the stream carried in part: a repeat only past what the caller held (the gap showed the rest)', () => {
    const carried: TurnSoFar = { sent: SENT, passed: [], passedFiles: ['A'], shownFiles: new Map([['A', [head]]]) };
    expect(repeats(snapshot, carried, [chunk('A', [tail], true)])).toEqual([true]);
    expect(repeats(snapshot, carried, [chunk('A', [head], true)])).toEqual([false]);
    // Held whole by the caller: all the agent sends of it is new.
    const whole: TurnSoFar = { ...carried, shownFiles: new Map([['A', FILE.parts]]) };
    expect(repeats(snapshot, whole, [chunk('A', [tail], true)])).toEqual([false]);
  });

  it('a chunk of a file whose start the stream did not carry is not a repeat: the gap left that file out', () => {
    // The stream carried chunks appended to a file it did not begin: what the caller holds of it is not known, so
    // the gap shows nothing of it (turn-snapshot.ts), and what the agent sent of it as the subscription listened is seen only live.
    const carried: TurnSoFar = { sent: SENT, passed: [], passedFiles: ['A'], shownFiles: new Map([['A', undefined]]) };
    expect(repeats(snapshot, carried, [chunk('A', FILE.parts)])).toEqual([false]);
    expect(repeats(snapshot, carried, [chunk('A', [tail], true)])).toEqual([false]);
  });

  it('a file the snapshot does not hold is not a repeat', () => {
    expect(repeats(snapshot, turn, [chunk('B', [head])])).toEqual([false]);
  });
});

describe('SnapshotEcho: iac-code, one message id for a whole turn', () => {
  // iac-code does not record the message that opened the task, and keeps its status message in the history
  // only once the status changes; every chunk of the turn has the id `<taskId>-message`.
  const chunkOf = (text: string): Message => agent(text, 'T-message');
  const snapshotOf = (history: string[], latest: string): Task => ({
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_WORKING', message: chunkOf(latest) },
    history: history.map(chunkOf),
    metadata: { iac_code: SESSION },
  });
  const turnOf = (passed: string[]): TurnSoFar => ({ sent: SENT, passed });
  const latestAgain = (text: string): StreamResponse => working(chunkOf(text), { iac_code: SESSION });

  it('a chunk with the words of its latest (the next "." of a run of dots): new, not a repeat', () => {
    // Its chunks carry no timestamp: only their place tells them apart, and a live one comes after the snapshot.
    expect(repeats(snapshotOf(['好的，', '我来'], '.'), turnOf(['好的，']), [latestAgain('.')])).toEqual([false]);
  });

  it('a chunk with the text of one the caller read before the snapshot: new, not a repeat', () => {
    // The same id and parts as the first chunk, but the caller read that one: the agent says it anew.
    expect(repeats(snapshotOf(['好的，', '我来'], '创建'), turnOf(['好的，', '我来', '创建']), [latestAgain('好的，')])).toEqual([false]);
  });

  it("a table's pipes after the snapshot, each the words of a chunk it holds: every one new", () => {
    const snapshot = snapshotOf(['| a ', '|', ' b '], '|');
    const live = ['\n', '|', ' c ', '|'].map(latestAgain);
    expect(repeats(snapshot, turnOf(['| a ']), live)).toEqual([false, false, false, false]);
  });
});

describe("SnapshotEcho: iac-code's one id a turn", () => {
  it('a new live chunk that says a missed chunk’s words again is not taken for it', () => {
    const id = 'T-message';
    const snapshot: Task = {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: agent('模板', id) },
      history: [SENT, agent('好的', id), agent('，', id), agent('我来', id), agent('创建', id)],
    };
    const turn: TurnSoFar = { sent: SENT, passed: ['好的'] };
    expect(repeats(snapshot, turn, [working(agent('，', id)), working(agent('写入', id))])).toEqual([false, false]);
  });
});
