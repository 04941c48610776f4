/**
 * iac-code in pipeline mode in front of a Bailian user: its text, steps and questions come only as
 * envelopes in metadata, and the user reads them as text, the same over message/send and message/stream.
 * A conversation in three turns (fake-iac-code-pipeline.ts, shaped from iac-code's source): a question
 * with options, answered by number; steps, two candidates writing at once (each shown as one block) and
 * the generated template, then a choice between the candidates, answered by number, which reaches
 * iac-code as the candidate's name; the deployment, or its failure and the reason.
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
} from '../../support/fake-iac-code-pipeline.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const TEMPLATE = 'ROSTemplateFormatVersion: "2015-09-01"\nResources: {}\n';

const ASKED = [
  'Step 1/5: Intent parsing',
  PIPELINE_SAYS.asking.join(''),
  PIPELINE_SAYS.beforeQuestion,
  PIPELINE_QUESTION,
  `1. ${PIPELINE_OPTIONS[0]!.label} — ${PIPELINE_OPTIONS[0]!.description}`,
  `2. ${PIPELINE_OPTIONS[1]!.label}`,
  'Reply with a number, or in your own words.',
].join('\n');

const CHOICE = [
  '请选择方案',
  ...CANDIDATES.map((candidate, at) => `${at + 1}. ${candidate.name} — ${candidate.summary}`),
  'Reply with a number.',
].join('\n');

type Mode = 'message/send' | 'message/stream';

describe.each(['message/send', 'message/stream'] as const)('facade → iac-code in pipeline mode, over %s', (mode: Mode) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-pipeline-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      runMode: 'pipeline',
      script: { before: [], after: [], artifact: { filename: 'template.yaml', content: Buffer.from(TEMPLATE), dir } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
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
    const asked = await turn('帮我部署一个网站');
    // Bailian ends a turn that asks as `completed` (its profile), as it does in normal mode.
    expect(asked).toMatchObject({ said: ASKED, state: 'completed' });

    const firstTask = [...fake.tasks.keys()].at(-1);
    const planned = await turn('1', asked.contextId);
    // iac-code takes an answer only into the task that asked ("Pipeline already running. Resume task ...").
    expect(lastSent()).toMatchObject({ taskId: firstTask, parts: [{ text: '1' }] });
    expect(planned.state).toBe('completed');
    const shown = planned.said;
    expect(shown.startsWith(`Step 2/5: Architecture planning\n${PIPELINE_SAYS.planning}\nStep 3/5: Evaluate candidates\n`)).toBe(true);
    expect(shown).toContain(TEMPLATE);
    // Each candidate's words in one piece, though they arrived interleaved.
    expect(shown).toContain(`Candidate 1:\n${CANDIDATES[0]!.text.join('')}\nCandidate 2:\n${CANDIDATES[1]!.text.join('')}`);
    expect(shown.endsWith(`\nStep 4/5: Confirm and select\n${CHOICE}`)).toBe(true);

    const deployed = await turn('2', asked.contextId);
    expect(lastSent()).toMatchObject({ taskId: firstTask, parts: [{ text: CANDIDATES[1]!.name }] });
    expect(deployed).toMatchObject({
      said: `Step 5/5: Deploying\n${PIPELINE_SAYS.deploying(CANDIDATES[1]!.name)}\n${PIPELINE_SAYS.deployed}`,
      state: 'completed',
    });
  });

  it('a failed step: the user reads why', async () => {
    const asked = await turn('帮我部署一个网站');
    await turn('大型', asked.contextId);
    const failed = await turn(FAIL_DEPLOYMENT, asked.contextId);
    expect(sentToIacCode()).toBe(FAIL_DEPLOYMENT);
    expect(failed.state).toBe('failed');
    expect(failed.said).toBe(`Step 5/5: Deploying\n${PIPELINE_SAYS.deploying(FAIL_DEPLOYMENT)}\n${PIPELINE_FAILURE}`);
  });
});
