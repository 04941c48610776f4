/**
 * iac-code in pipeline mode in front of a Bailian user: its text, steps and questions come only as
 * envelopes in metadata, and the user reads them as text, the same over message/send and message/stream.
 * A conversation in three turns (fake-iac-code-pipeline.ts, shaped from iac-code's source): a question
 * with options, answered by number; steps, two candidates writing at once (each shown as one block) and
 * the generated template, then a choice between the candidates, answered by number, which reaches
 * iac-code as the candidate's name; the deployment, or its failure and the reason. The facade's own words
 * (headings, how to answer) are in the user's language, or in the one the operator fixed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import {
  CANDIDATES,
  FAIL_DEPLOYMENT,
  PIPELINE_FAILURE,
  PIPELINE_OPTIONS,
  PIPELINE_QUESTION,
  PIPELINE_SAYS,
  TEMPLATE_FILE,
} from '../../support/fake-iac-code-pipeline.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const TEMPLATE = 'ROSTemplateFormatVersion: "2015-09-01"\nResources: {}\n';

/** The facade's own words as a user of each language reads them; the agent's words stay as iac-code wrote them. */
const LANGUAGES = {
  zh: {
    opening: '帮我部署一个网站',
    bigAnswer: '大型',
    steps: ['步骤 1/5：意图解析', '步骤 2/5：架构规划', '步骤 3/5：评估候选方案', '步骤 4/5：确认并选择', '步骤 5/5：部署执行'],
    candidates: ['候选方案 1：', '候选方案 2：'],
    replyWithNumberOrWords: '请回复编号，或直接用文字说明。',
    replyWithNumber: '请回复编号。',
  },
  en: {
    opening: 'Please deploy a small website for me',
    bigAnswer: 'large',
    steps: [
      'Step 1/5: Intent parsing',
      'Step 2/5: Architecture planning',
      'Step 3/5: Evaluate candidates',
      'Step 4/5: Confirm and select',
      'Step 5/5: Deploying',
    ],
    candidates: ['Candidate 1:', 'Candidate 2:'],
    replyWithNumberOrWords: 'Reply with a number, or in your own words.',
    replyWithNumber: 'Reply with a number.',
  },
  // The operator fixed the language (`bailian.language: ja`): a user writing Chinese reads the facade's words in Japanese.
  ja: {
    opening: '帮我部署一个网站',
    bigAnswer: '大型',
    steps: [
      'ステップ 1/5：意図解析',
      'ステップ 2/5：アーキテクチャ計画',
      'ステップ 3/5：候補の評価',
      'ステップ 4/5：確認と選択',
      'ステップ 5/5：デプロイ',
    ],
    candidates: ['候補 1：', '候補 2：'],
    replyWithNumberOrWords: '番号、または文章で返信してください。',
    replyWithNumber: '番号で返信してください。',
  },
} as const;

type Language = (typeof LANGUAGES)[keyof typeof LANGUAGES];

const asked = (words: Language): string =>
  [
    words.steps[0],
    PIPELINE_SAYS.asking.join(''),
    PIPELINE_SAYS.beforeQuestion,
    PIPELINE_QUESTION,
    `1. ${PIPELINE_OPTIONS[0]!.label} — ${PIPELINE_OPTIONS[0]!.description}`,
    `2. ${PIPELINE_OPTIONS[1]!.label}`,
    words.replyWithNumberOrWords,
  ].join('\n');

const choice = (words: Language): string =>
  ['请选择方案', ...CANDIDATES.map((candidate, at) => `${at + 1}. ${candidate.name} — ${candidate.summary}`), words.replyWithNumber].join('\n');

type Mode = 'message/send' | 'message/stream';

const cases = (['message/send', 'message/stream'] as const).flatMap((mode) =>
  (['zh', 'en', 'ja'] as const).map((language) => [mode, language] as const),
);

describe.each(cases)('facade → iac-code in pipeline mode, over %s, the facade speaking %s', (mode: Mode, language) => {
  const words = LANGUAGES[language];
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-pipeline-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      runMode: 'pipeline',
      script: { before: [], after: [], artifact: { filename: 'template.yaml', content: Buffer.from(TEMPLATE), dir } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir }, ...(language === 'ja' ? { bailian: { language } } : {}) });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One turn as the user reads it, and how it ended. */
  async function turn(text: string, contextId?: string): Promise<{ said: string; state: string; contextId: string }> {
    const message = userMessage({ text, ...(contextId ? { contextId } : {}) });
    if (mode === 'message/send') {
      const answer = await rpc(gateway.url, 'message/send', { message });
      const task = answer.body.result;
      return { said: sentText(task), state: task.status.state, contextId: task.contextId };
    }
    const events = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', { message })).rest());
    const last = events.at(-1);
    expect(last).toMatchObject({ kind: 'status-update', final: true });
    return { said: streamedText(events), state: last.status.state, contextId: events[0].contextId };
  }

  const lastSent = (): any => (fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message;
  const sentToIacCode = (): string => lastSent().parts[0].text;

  it('the question, the candidates with their template, the choice by number, and the deployment are read as text', async () => {
    const opened = await turn(words.opening);
    // A question iac-code asks (`ask_user_question`) ends the turn `input-required`: Bailian routes the answer back here.
    expect(opened).toMatchObject({ said: asked(words), state: 'input-required' });
    // The opening message named no context: the facade gave it one, which iac-code took and the user got back.
    expect(lastSent().contextId).toBe(opened.contextId);

    const firstTask = [...fake.tasks.keys()].at(-1);
    const planned = await turn('1', opened.contextId);
    // iac-code takes an answer only into the task that asked ("Pipeline already running. Resume task ...").
    expect(lastSent()).toMatchObject({ taskId: firstTask, parts: [{ text: '1' }] });
    // The choice between candidates is one the facade reads from the user's words: Bailian is told the turn waits
    // (`input-required`), so that it routes the user's next message, the choice, back to this agent.
    expect(planned.state).toBe('input-required');
    const shown = planned.said;
    // A bare number says no language: the facade keeps answering in the conversation's.
    expect(shown.startsWith(`${words.steps[1]}\n${PIPELINE_SAYS.planning}\n${words.steps[2]}\n`)).toBe(true);
    // Each candidate's words in one piece, though they arrived interleaved; the template the first one wrote
    // (while both still wrote) right after its block.
    const template = `${TEMPLATE_FILE}\n\`\`\`yaml\n${TEMPLATE}\`\`\``;
    expect(shown).toContain(
      `${words.candidates[0]}\n${CANDIDATES[0]!.text.join('')}\n${template}\n${words.candidates[1]}\n${CANDIDATES[1]!.text.join('')}`,
    );
    expect(shown.endsWith(`\n${words.steps[3]}\n${choice(words)}`)).toBe(true);

    const deployed = await turn('2', opened.contextId);
    expect(lastSent()).toMatchObject({ taskId: firstTask, parts: [{ text: CANDIDATES[1]!.name }] });
    expect(deployed).toMatchObject({
      said: `${words.steps[4]}\n${PIPELINE_SAYS.deploying(CANDIDATES[1]!.name)}\n${PIPELINE_SAYS.deployed}`,
      state: 'completed',
    });
  });

  it.each([
    ["the part after its label's colon", (name: string) => name.split(/[:：]/u)[1]!],
    ["its head, in the agent's language", (name: string) => name.split(/[:：]/u)[0]!],
  ])("a choice by the candidate's name (%s) picks it; the facade's words stay in the conversation's language", async (_how, named) => {
    const opened = await turn(words.opening);
    await turn('1', opened.contextId);
    const deployed = await turn(named(CANDIDATES[1]!.name), opened.contextId);
    expect(lastSent().parts).toEqual([{ text: CANDIDATES[1]!.name }]);
    expect(deployed.said).toBe(`${words.steps[4]}\n${PIPELINE_SAYS.deploying(CANDIDATES[1]!.name)}\n${PIPELINE_SAYS.deployed}`);
  });

  it.each(['第二个', '方案二', '二番目'])('a choice by its number as a numeral (%s) is sent as its name, as a number is', async (said) => {
    const opened = await turn(words.opening);
    await turn('1', opened.contextId);
    const deployed = await turn(said, opened.contextId);
    expect(lastSent().parts).toEqual([{ text: CANDIDATES[1]!.name }]);
    expect(deployed.said).toBe(`${words.steps[4]}\n${PIPELINE_SAYS.deploying(CANDIDATES[1]!.name)}\n${PIPELINE_SAYS.deployed}`);
  });

  it('a failed step: the user reads why', async () => {
    const opened = await turn(words.opening);
    await turn(words.bigAnswer, opened.contextId);
    const failed = await turn(FAIL_DEPLOYMENT, opened.contextId);
    expect(sentToIacCode()).toBe(FAIL_DEPLOYMENT);
    expect(failed.state).toBe('failed');
    expect(failed.said).toBe(`${words.steps[4]}\n${PIPELINE_SAYS.deploying(FAIL_DEPLOYMENT)}\n${PIPELINE_FAILURE}`);
  });
});
