/**
 * iac-code in pipeline mode whose stream breaks off mid-turn. Its words come only as envelopes in status
 * updates' metadata, and the task a resubscription opens with (or a GetTask) keeps those of the latest
 * update alone; iac-code journals every envelope it sends and its pipeline state route replays them after a
 * number (fake-iac-code-journal.ts, as read in its source). So the facade recovers the turn exactly at every
 * break point, however many updates it missed, and whatever gaps iac-code leaves in its numbering (a number
 * dropped, a journal-only copy, numbers running on from the turn before). When that route cannot answer
 * (missing, failing, hanging), it says at the place of the gap that part of the reply may be missing, never
 * showing a step's or a candidate's words out of order or a template after another candidate's block.
 * At every break point of each turn of the fake's conversation (fake-iac-code-pipeline.ts), over
 * message/send and message/stream alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/words.js';
import { CANDIDATES, PIPELINE_SAYS, TEMPLATE_FILE } from '../../support/fake-iac-code-pipeline.js';
import { startFakeIacCode, type FakeIacCode, type Fault } from '../../support/fake-iac-code.js';
import type { PipelineStateFailure } from '../../support/fake-iac-code-journal.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

// Not inlined (no shared artifact folder): a follow-up's recovery then knows the task's earlier template as
// the one the turn before showed (with the folder, see the report in docs/facade-reply.md's recovery section).
const TEMPLATE = 'ROSTemplateFormatVersion: "2015-09-01"\nResources: {}\n';
const LOST = facadeWords('zh').pipelineWordsLost;
/**
 * The user's messages of the conversation, the frames of each turn's stream (the first opens with its task), and the
 * state Bailian is shown at its end: the turn that asks to pick a candidate waits for the user's choice.
 */
const TURNS = [
  { said: '帮我部署一个网站', frames: 8, ends: 'input-required' },
  { said: '1', frames: 15, ends: 'input-required' },
  { said: '2', frames: 7, ends: 'completed' },
] as const;
const LABELS = ['候选方案 1：', '候选方案 2：'];
/** What the user reads, in the order the unbroken turns say it (a candidate's words under its own label: below). */
const ORDERED = [
  '步骤 1/5：意图解析',
  ...PIPELINE_SAYS.asking,
  PIPELINE_SAYS.beforeQuestion,
  '步骤 2/5：架构规划',
  PIPELINE_SAYS.planning,
  '步骤 3/5：评估候选方案',
  '步骤 4/5：确认并选择',
  '请选择方案',
  '步骤 5/5：部署执行',
  PIPELINE_SAYS.deploying(CANDIDATES[1]!.name),
  PIPELINE_SAYS.deployed,
];

type Mode = 'message/send' | 'message/stream';
/** What the user read of one turn over one method. */
type Reading = { mode: Mode; said: string };

/** The fake iac-code in pipeline mode and a facade gateway in front of it. */
interface Bench {
  fake: FakeIacCode;
  gateway: RunningGateway;
}

async function startBench(failure?: PipelineStateFailure): Promise<Bench> {
  const fake = await startFakeIacCode({
    runMode: 'pipeline',
    script: { before: [], after: [], artifact: { filename: TEMPLATE_FILE, content: Buffer.from(TEMPLATE) } },
  });
  if (failure) fake.failPipelineState(failure);
  return { fake, gateway: await startFacadeGateway({ upstream: { url: fake.url } }) };
}

async function closeBench({ fake, gateway }: Bench): Promise<void> {
  await gateway.close();
  await fake.close();
}

async function turn(
  { fake, gateway }: Bench,
  mode: Mode,
  { said: text, ends }: { said: string; ends: 'completed' | 'input-required' },
  contextId?: string,
  fault?: Fault,
): Promise<{ said: string; contextId: string }> {
  if (fault) fake.injectFault(fault, { method: 'SendStreamingMessage' });
  const message = userMessage({ text, ...(contextId ? { contextId } : {}) });
  if (mode === 'message/send') {
    const task = (await rpc(gateway.url, 'message/send', { message })).body.result;
    expect(task.status.state).toBe(ends);
    return { said: sentText(task), contextId: task.contextId };
  }
  const events = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', { message })).rest());
  expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: ends } });
  return { said: streamedText(events), contextId: events[0].contextId };
}

/** Turn `stage` of a new conversation, the turns before it unbroken. */
async function brokenTurn(bench: Bench, mode: Mode, stage: number, fault: Fault): Promise<string> {
  let contextId: string | undefined;
  for (const before of TURNS.slice(0, stage)) contextId = (await turn(bench, mode, before, contextId)).contextId;
  return (await turn(bench, mode, TURNS[stage]!, contextId, fault)).said;
}

/** How each method's stream breaks after frame `after`, resubscribed `gap` updates past the break. */
const faults = (after: number, gap: number): Array<[Mode, Fault]> => [
  ['message/send', { name: 'kill-mid-stream', after, gap }],
  ['message/stream', { name: 'end-mid-stream', after, gap }],
];

describe('facade → iac-code in pipeline mode whose stream breaks off mid-turn', () => {
  let shared: Bench;
  /** What each turn reads unbroken (the same over both methods: iac-code-pipeline.test.ts). */
  const unbroken: string[] = [];

  /** Turn `stage` broken after frame `after`, `gap` updates missed, over each method in turn on the shared fake. */
  async function readBroken(stage: number, after: number, gap: number): Promise<Reading[]> {
    const readings: Reading[] = [];
    for (const [mode, fault] of faults(after, gap)) readings.push({ mode, said: await brokenTurn(shared, mode, stage, fault) });
    return readings;
  }

  /**
   * The same, each method at once on a fake and gateway of its own whose state route fails so: a hanging
   * route costs its time bound (PIPELINE_STATE_MAX_MS) at each recovery, and these wait it out side by side.
   */
  async function readBrokenApart(failure: PipelineStateFailure, stage: number, after: number, gap: number): Promise<Reading[]> {
    return Promise.all(
      faults(after, gap).map(async ([mode, fault]) => {
        const bench = await startBench(failure);
        try {
          return { mode, said: await brokenTurn(bench, mode, stage, fault) };
        } finally {
          await closeBench(bench);
        }
      }),
    );
  }

  beforeAll(async () => {
    shared = await startBench();
    let contextId: string | undefined;
    for (const asked of TURNS) {
      const read = await turn(shared, 'message/send', asked, contextId);
      contextId = read.contextId;
      unbroken.push(read.said);
    }
    expect(unbroken[1]).toContain(`${LABELS[0]}\n${CANDIDATES[0]!.text.join('')}\n${TEMPLATE_FILE}`);
  });
  afterAll(async () => {
    if (shared) await closeBench(shared);
  });

  const breaks = TURNS.flatMap(({ frames }, stage) => Array.from({ length: frames - 1 }, (_, at) => [stage, at + 1] as const));

  describe('iac-code replays what the snapshot cannot tell (its pipeline state route)', () => {
    // 0 and 1: the snapshot's latest update is all that was missed; past that, the journal tells the rest.
    describe.each([0, 1, 2, 3, 5])('subscribed %i updates past the break', (gap) => {
      it.each(breaks)('turn %i broken after frame %i reads as unbroken', async (stage, after) => {
        for (const { mode, said } of await readBroken(stage, after, gap)) expect(said, mode).toBe(unbroken[stage]);
      });
    });

    it('a turn broken where no snapshot can follow (read from the task) reads as unbroken', async () => {
      // The turn ends before the facade subscribes: iac-code refuses the subscription, the task is read.
      for (const { mode, said } of await readBroken(1, 3, 20)) expect(said, mode).toBe(unbroken[1]);
    });

    it('a number iac-code skipped right after the break is no gap: no line, nothing lost', async () => {
      // Frame 5 is the planning text; iac-code dropped the envelope numbered next (fake-iac-code-pipeline.ts),
      // so the snapshot's latest update does not follow on by number.
      for (const { mode, said } of await readBroken(1, 5, 1)) {
        expect(said, mode).toBe(unbroken[1]);
        expect(said, mode).not.toContain(LOST);
      }
    });

    it("the journal is asked with the number the user read last, through the gateway's upstream connection", async () => {
      const asked = (): URLSearchParams[] =>
        shared.fake.requests.filter((request) => request.path === '/iac-code/pipeline/state').map((request) => request.query);
      const before = asked().length;
      await brokenTurn(shared, 'message/send', 1, { name: 'kill-mid-stream', after: 4, gap: 3 });
      const queries = asked().slice(before);
      expect(queries.length).toBeGreaterThan(0);
      for (const query of queries) expect(query.get('afterSequence')).toMatch(/^[1-9][0-9]*$/);
    });
  });

  describe.each<PipelineStateFailure>(['missing', 'fails', 'hangs'])('the pipeline state route %s: the gap is said', (failure) => {
    // A hanging route costs its time bound at each recovery: a few break points are enough there, each read
    // on a fake of its own, all at once.
    const hangs = failure === 'hangs';
    const read = (stage: number, after: number, gap: number): Promise<Reading[]> =>
      hangs ? readBrokenApart(failure, stage, after, gap) : readBroken(stage, after, gap);
    const test = hangs ? it.concurrent : it;
    beforeAll(() => shared.fake.failPipelineState(failure));
    afterAll(() => shared.fake.failPipelineState(undefined));
    const some = hangs ? breaks.filter(([stage, after]) => stage === 1 && (after === 6 || after === 10)) : breaks;

    // Subscribed at the break: nothing was missed but what comes live.
    test.each(some)('turn %i broken after frame %i, subscribed at once, reads as unbroken', async (stage, after) => {
      for (const { mode, said } of await read(stage, after, 0)) expect(said, mode).toBe(unbroken[stage]);
    });

    // More than one update past the break: those before the snapshot's latest are lost with their words.
    test.each(some)(
      'turn %i broken after frame %i, 3 updates missed: exact, or the gap is said where it is, nothing out of order',
      async (stage, after) => {
        for (const { mode, said } of await read(stage, after, 3)) {
          if (said === unbroken[stage]) continue;
          expect(said.split(LOST).length - 1, `${mode}: ${said}`).toBe(1);
          expectInOrder(said, mode);
        }
      },
    );

    test('a turn broken where no snapshot can follow (read from the task) says the gap too', async () => {
      for (const { mode, said } of await read(1, 3, 20)) {
        // The template came in the gap, the envelope naming its candidate too: it follows the line, under no candidate.
        expect(said).toContain(`${LOST}\n${TEMPLATE_FILE}`);
        expect(said).toContain('请选择方案');
        expect(said).not.toContain('步骤 4/5');
        expectInOrder(said, mode);
      }
    });

    test('a candidate whose template came before the break and whose name for it was lost: its file is not put under another candidate', async () => {
      // Frame 10 is the template; the envelope that says it is the first candidate's comes next, and is lost.
      for (const { said } of await read(1, 10, 3)) {
        expect(said).toContain(`${LABELS[1]}\n${CANDIDATES[1]!.text.join('')}\n${LOST}\n${TEMPLATE_FILE}`);
      }
    });

    test('a number iac-code skipped right after the break reads as a gap: the line, though nothing was lost', async () => {
      for (const { mode, said } of await read(1, 5, 1)) {
        expect(said, mode).toContain(LOST);
        expect(said.replace(`${LOST}\n`, ''), mode).toBe(unbroken[1]);
      }
    });

    test('the gap line is in the conversation language', async () => {
      const bench = hangs ? await startBench(failure) : shared;
      try {
        const fault: Fault = { name: 'kill-mid-stream', after: 2, gap: 4 };
        const said = await turn(bench, 'message/send', { said: 'Please deploy a small website for me', ends: 'input-required' }, undefined, fault);
        expect(said.said).toContain(`${facadeWords('en').pipelineWordsLost}\n`);
      } finally {
        if (bench !== shared) await closeBench(bench);
      }
    });
  });
});

/** What `said` shows comes in the unbroken order, each candidate's words and its template under its own label. */
function expectInOrder(said: string, mode: Mode): void {
  const at = ORDERED.map((piece) => said.indexOf(piece)).filter((index) => index >= 0);
  expect(at, `${mode}: ${said}`).toEqual([...at].sort((a, b) => a - b));
  const owner = (index: number): string | undefined => {
    const marks = [...LABELS, LOST].map((mark) => ({ mark, at: said.lastIndexOf(mark, index) })).filter((found) => found.at >= 0);
    return marks.sort((a, b) => b.at - a.at)[0]?.mark;
  };
  CANDIDATES.forEach((candidate, index) => {
    for (const piece of candidate.text.map((text) => text.trim())) {
      for (let found = said.indexOf(piece); found >= 0; found = said.indexOf(piece, found + 1)) {
        expect(owner(found), `${mode}: ${said}`).toBe(LABELS[index]);
      }
    }
  });
  const template = said.indexOf(TEMPLATE_FILE);
  if (template >= 0) expect([LABELS[0], LOST], `${mode}: ${said}`).toContain(owner(template));
}
