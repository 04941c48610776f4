/**
 * What of a cut turn's rest says again the turn's text from before the cut (rest-restatements.ts, turn-rest.ts):
 * left out, since the rest is a reply of its own whose rules see none of what its user read before the cut.
 * Anything else the agent says is shown, words said again included.
 */
import { describe, expect, it } from 'vitest';
import type { Message, Part, StreamResponse, Task } from '../../../../src/model/index.js';
import { withoutRestatements } from '../../../../src/surfaces/v025/recovery/rest-restatements.js';
import { restCursor, restEvents, type TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';

const agent = (text: string, messageId = 'T-message'): Message => ({ messageId, role: 'ROLE_AGENT', parts: [{ text }] });
const FINAL = { iac_code: { assistantFinal: { complete: true } } };
const working = (message: Message, metadata?: Record<string, unknown>): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message }, ...(metadata ? { metadata } : {}) },
});
const file = (parts: Part[], append?: boolean): StreamResponse => ({
  artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'A', name: 'reply.txt', parts }, ...(append ? { append } : {}) },
});
const WAITING: StreamResponse = { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } };

/** The user read "Deployed w01 " before the cut; the rest says "w02 ", "." and ".". */
const READ = ['Deployed ', 'w01 '];
const REST = ['w02 ', '.', '.'];
const ANSWER = [...READ, ...REST].join('');

async function relayed(
  events: StreamResponse[],
  read: readonly string[] | Pick<TurnSoFar, 'passed' | 'shownFiles'> = READ,
): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of withoutRestatements(
    (async function* () {
      yield* events;
    })(),
    'passed' in read ? read : { passed: [...read] },
  ))
    out.push(event);
  return out;
}

const ending = (state: 'TASK_STATE_COMPLETED' | 'TASK_STATE_FAILED', message?: Message): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state, ...(message ? { message } : {}) } },
});

describe('withoutRestatements: the live rest of a cut turn', () => {
  const rest = REST.map((text) => working(agent(text)));

  it("iac-code's assistantFinal that restates the answer from before the cut: left out, the rest as it came", async () => {
    const events = [...rest, working(agent(ANSWER, 'T-2'), FINAL), WAITING];
    expect(await relayed(events)).toEqual([...rest, WAITING]);
  });

  it('one that restates only the text after the cut: left to the reply, whose rules see that text', async () => {
    const events = [...rest, working(agent('w02 ..', 'T-2'), FINAL)];
    expect(await relayed(events)).toEqual(events);
  });

  it('the answer again at the end, past a message its user never got: only what they missed', async () => {
    const missed = rest.slice(0, -1);
    expect(await relayed([...missed, ending('TASK_STATE_COMPLETED', agent(ANSWER, 'T-2'))])).toEqual([
      ...missed,
      ending('TASK_STATE_COMPLETED', agent('.', 'T-2')),
    ]);
  });

  it('new words under the marker, or the answer again without it: shown', async () => {
    const events = [...rest, working(agent('Anything else?', 'T-2'), FINAL), working(agent(ANSWER, 'T-3'))];
    expect(await relayed(events)).toEqual(events);
  });

  it('an artifact of text that says the answer again whole: left out; a chunk appended to a file, or a file of another kind, shown', async () => {
    const again = file([{ text: ANSWER }]);
    const chunk = file([{ text: ANSWER }], true);
    const link = file([{ url: 'https://example.com/reply.txt', mediaType: 'text/plain' }]);
    expect(await relayed([...rest, again, chunk, link])).toEqual([...rest, chunk, link]);
  });
});

describe('withoutRestatements: an agent that streams its answer as a file and ends the turn with it whole (the a2a-js samples)', () => {
  /** The user read the file's first chunks before the cut. */
  const shown = { passed: [], shownFiles: new Map([['A', READ.map((text) => ({ text }))]]) };
  const rest = REST.map((text) => file([{ text }], true));

  it('the status that ends the turn with the answer whole: kept, without its message', async () => {
    expect(await relayed([...rest, ending('TASK_STATE_COMPLETED', agent(ANSWER, 'T-2'))], shown)).toEqual([...rest, ending('TASK_STATE_COMPLETED')]);
  });

  it('one that says only the file after the cut, new words, or why the turn failed: shown', async () => {
    for (const closing of [
      ending('TASK_STATE_COMPLETED', agent('w02 ..', 'T-2')),
      ending('TASK_STATE_COMPLETED', agent('Anything else?', 'T-2')),
      ending('TASK_STATE_FAILED', agent(ANSWER, 'T-2')),
    ]) {
      expect(await relayed([...rest, closing], shown)).toEqual([...rest, closing]);
    }
  });

  it('a chunk the subscription lost (the SDK loads the task, then listens): the status shows what its user missed, as the file goes on', async () => {
    const missed = rest.slice(0, -1);
    const lost: StreamResponse = {
      artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'A', parts: [{ text: '.' }] }, append: true },
    };
    expect(await relayed([...missed, ending('TASK_STATE_COMPLETED', agent(ANSWER, 'T-2'))], shown)).toEqual([
      ...missed,
      lost,
      ending('TASK_STATE_COMPLETED'),
    ]);
  });

  it("a file the user read none of: its restatement is the rest's own, left to the reply", async () => {
    const events = [file([{ text: 'Deployed ' }]), ...rest, ending('TASK_STATE_COMPLETED', agent('Deployed w02 ..', 'T-2'))];
    expect(await relayed(events, { passed: [] })).toEqual(events);
  });
});

describe('restEvents: a finished task read after the cut', () => {
  const turn: TurnSoFar = { sent: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'slow: go' }] }, passed: READ };
  const ended = (artifacts: Task['artifacts']): Task => ({
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_INPUT_REQUIRED' },
    history: [...READ, ...REST].map((text) => agent(text)).concat(agent(ANSWER, 'T-2')),
    artifacts,
  });
  const texts = (events: StreamResponse[]): string[] =>
    events.map((event) =>
      'artifactUpdate' in event
        ? `[${event.artifactUpdate.artifact.name}]`
        : 'statusUpdate' in event
          ? (event.statusUpdate.status.message?.parts[0]?.text ?? `[${event.statusUpdate.status.state}]`)
          : '?',
    );

  it('an artifact of text that says the turn again (the demo agent’s reply.txt): left out, not shown before the rest', () => {
    const task = ended([{ artifactId: 'A', name: 'reply.txt', parts: [{ text: ANSWER }] }]);
    expect(texts(restEvents(task, restCursor(task, turn), turn, undefined).events)).toEqual([...REST, '[TASK_STATE_INPUT_REQUIRED]']);
  });

  it('a file of other text: shown, as before', () => {
    const task = ended([{ artifactId: 'A', name: 'main.tf', parts: [{ text: 'resource "alicloud_vpc" "main" {}\n' }] }]);
    expect(texts(restEvents(task, restCursor(task, turn), turn, undefined).events)).toEqual(['[main.tf]', ...REST, '[TASK_STATE_INPUT_REQUIRED]']);
  });
});
