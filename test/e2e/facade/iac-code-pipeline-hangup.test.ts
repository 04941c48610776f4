/**
 * A Bailian user hangs up an iac-code pipeline turn (Bailian's time-out) while the candidates are being written;
 * the agent goes on to its choice, and the conversation's next message shows what it said after the hang-up
 * (cut-turns.ts). The task iac-code keeps holds only the envelopes of the turn's latest update, so the candidates'
 * words and the step heading before the choice are read from iac-code's journal (its pipeline state route), after
 * what the user was shown, as a broken stream's recovery reads them: the user reads the turn as if unbroken, with
 * no line saying words may be missing. Only when the journal cannot be read does that line stay.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/words.js';
import { PIPELINE_STATE_PATH } from '../../../src/upstream/iac-code/pipeline-state.js';
import { CANDIDATES } from '../../support/fake-iac-code-pipeline.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, reading, streamedText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const ZH = facadeWords('zh');
const LOST = ZH.pipelineWordsLost;
const ASK = '帮我部署一个网站';
/** The answer to the question: the turn that writes the candidates and asks to choose one. */
const PLAN = '1';
/** What the user reads after the hang-up, when nothing was lost. */
const AFTER_HANGUP = [...CANDIDATES.map((candidate) => candidate.text.join('')), '步骤 4/5：确认并选择', '请选择方案'];

type Method = 'message/send' | 'message/stream';

describe('iac-code pipeline turn hung up mid-way: the next message shows its rest', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  /** The planning turn as a user who watched it to its end reads it. */
  let unbroken: string;
  beforeAll(async () => {
    fake = await startFakeIacCode({ runMode: 'pipeline', frameDelayMs: 60 });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    const contextId = await asked();
    unbroken = await reading(gateway.url, 'message/stream', PLAN, contextId);
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  /** A new conversation whose question was answered in full; returns its context. */
  async function asked(): Promise<string> {
    const contextId = `pipeline-hangup-${randomUUID()}`;
    await reading(gateway.url, 'message/send', ASK, contextId);
    return contextId;
  }

  /** The conversation's task at iac-code, as it stands. */
  const agentTask = (contextId: string): string =>
    JSON.stringify([...fake.tasks.values()].find((task) => (task as { contextId?: string }).contextId === contextId) ?? {});
  /** The candidates are being written (their envelopes name them, from the first to the last). */
  const writingCandidates = async (contextId: string): Promise<boolean> => agentTask(contextId).includes('evaluate_candidate_candidate_');
  /** How many times the facade read iac-code's journal so far. */
  const journalReads = (): number => fake.requests.filter((request) => request.path === PIPELINE_STATE_PATH).length;
  /** The agent asked to choose: the turn went on to its end after the hang-up. */
  const choiceAsked = (contextId: string): Promise<void> => waitUntil(async () => agentTask(contextId).includes('请选择方案'));

  /** The planning turn over message/stream, hung up once its user read that the candidates are evaluated: what they read. */
  async function streamHungUp(contextId: string): Promise<string> {
    const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: PLAN, contextId }) });
    const events: unknown[] = [];
    while (!streamedText(events).includes('步骤 3/5：评估候选方案')) {
      const frame = await opened.next();
      if (!frame) break;
      events.push(frame.json.result);
    }
    opened.abort();
    await choiceAsked(contextId);
    return streamedText(events);
  }

  /** The planning turn over message/send, hung up while the candidates are written (Bailian's time-out): its user read nothing. */
  async function sendHungUp(contextId: string): Promise<string> {
    const caller = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage({ text: PLAN, contextId }) } });
    const sent = fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: caller.signal });
    await waitUntil(() => writingCandidates(contextId));
    caller.abort();
    await sent.catch(() => undefined);
    await choiceAsked(contextId);
    return '';
  }

  // '2' picks a candidate: its user is told it was not passed on.
  const hangUps = {
    'message/stream': [streamHungUp, ZH.notPassedOn(ZH.cutTurnRest)],
    'message/send': [sendHungUp, ZH.notPassedOn(ZH.cutTurnWhole)],
  } as const;
  const methods: Method[] = ['message/stream', 'message/send'];
  const cases = methods.flatMap((hungUp) => methods.map((next): [Method, Method] => [hungUp, next]));

  it.each<[Method, Method]>(cases)('hung up over %s, the next message over %s shows the candidates and the step after them', async (hungUp, next) => {
    const [hangUp, lead] = hangUps[hungUp];
    const contextId = await asked();
    const read = await hangUp(contextId);
    const reads = journalReads();
    const said = await reading(gateway.url, next, '2', contextId);
    expect(said.startsWith(`${lead}\n\n`), said).toBe(true);
    const rest = said.slice(`${lead}\n\n`.length);
    expect(rest).not.toContain(LOST);
    for (const words of AFTER_HANGUP) expect(rest).toContain(words);
    // What was read, then the rest, reads as the unbroken turn (the rest is a reply of its own: no line break joins them).
    expect([read, rest].filter(Boolean).join('\n'), rest).toBe(unbroken);
    expect(journalReads()).toBeGreaterThan(reads);
  });

  it('without the journal, the rest says where words may be missing', async () => {
    const contextId = await asked();
    await streamHungUp(contextId);
    fake.failPipelineState('fails');
    try {
      const said = await reading(gateway.url, 'message/send', '2', contextId);
      expect(said).toContain(LOST);
      expect(said).toContain('请选择方案');
    } finally {
      fake.failPipelineState(undefined);
    }
  });
});
