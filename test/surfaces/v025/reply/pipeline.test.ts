/**
 * iac-code's pipeline envelopes through the reply reducer (pipeline-text.ts): what a person reads of
 * each kind, with both profiles; the same answer whether the envelopes come one per update or batched.
 */
import { describe, expect, it } from 'vitest';
import { createTurnReply } from '../../../../src/surfaces/v025/reply/index.js';
import { batch, candidate, envelope, single, step, text } from './pipeline-support.js';
import { artifact, options, readText, run, shape, spec, status, submitted } from './support.js';

describe('iac-code pipeline updates in the reply', () => {
  it('a step heading, the text, a line break after a tool, a question with numbered options; batched or not, the same words', () => {
    const question = envelope('input_required', {
      kind: 'ask_user_question',
      inputId: 'ask-1',
      question: 'How big?',
      options: [
        { id: 's', label: 'Small', description: 'one server' },
        { id: 'l', label: 'Large' },
      ],
      allowFreeText: false,
    });
    const started = envelope('step_started', { name: 'architecture_planning' }, step('architecture_planning', 2));
    const tool = envelope('tool_started', { toolName: 'ask_user_question' }, step('architecture_planning', 2));
    const where = step('architecture_planning', 2);
    const expected = 'Step 2/3: Architecture planning\nLet me ask.\nOne thing:\nHow big?\n1. Small — one server\n2. Large\nReply with a number.';
    const oneByOne = run([
      submitted,
      single('TASK_STATE_WORKING', started),
      single('TASK_STATE_WORKING', text('Let me ', where)),
      single('TASK_STATE_WORKING', text('ask.', where)),
      single('TASK_STATE_WORKING', tool),
      single('TASK_STATE_INPUT_REQUIRED', question),
    ]);
    const batched = run([
      submitted,
      batch('TASK_STATE_WORKING', [started, text('Let me ', where), text('ask.', where), tool]),
      batch('TASK_STATE_INPUT_REQUIRED', [text('One thing:', where), question]),
    ]);
    expect(readText(batched)).toBe(expected);
    expect(readText(oneByOne)).toBe(expected.replace('One thing:\n', ''));
    expect(shape(batched).at(-1)).toBe('status:completed:final');
    // A plain 0.2.5 caller: the question is the reply, the turn ends input-required.
    const plain = run([submitted, single('TASK_STATE_INPUT_REQUIRED', question)], options(spec));
    expect(readText(plain)).toBe('How big?\n1. Small — one server\n2. Large\nReply with a number.');
    expect(plain.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
  });

  it('candidates writing at once: each one shown as a block when it ends, the rest when the turn ends', () => {
    const reply = createTurnReply(options());
    reply.push(submitted);
    const interleaved = batch('TASK_STATE_WORKING', [
      text('A one ', candidate(0, 'ECS')),
      text('B one ', candidate(1)),
      text('A two', candidate(0, 'ECS')),
      text('B two', candidate(1)),
    ]);
    expect(readText(reply.push(interleaved))).toBe('');
    expect(readText(reply.push(single('TASK_STATE_WORKING', envelope('candidate_completed', {}, candidate(0, 'ECS')))))).toBe(
      'Candidate 1 (ECS):\nA one A two',
    );
    expect(readText(reply.push(single('TASK_STATE_INPUT_REQUIRED', envelope('input_required', { prompt: 'Pick one' }))))).toBe(
      '\nCandidate 2:\nB one B two\nPick one',
    );
  });

  it('a deployment to confirm: what went wrong before, the summary, the template and the options', () => {
    const confirm = envelope('input_required', {
      kind: 'deployment_confirmation',
      prompt: 'Deploy?',
      validation_message: 'InstanceType is not sold in cn-hangzhou-k.',
      solution_summary: 'Two ECS behind an SLB.',
      template_url: 'https://example.com/t.yaml',
      options: [
        { action: 'confirm', name: 'Deploy' },
        { action: 'cancel', name: 'Cancel' },
      ],
    });
    expect(readText(run([submitted, single('TASK_STATE_INPUT_REQUIRED', confirm)]))).toBe(
      'InstanceType is not sold in cn-hangzhou-k.\nDeploy?\nTwo ECS behind an SLB.\nTemplate: https://example.com/t.yaml\n1. Deploy\n2. Cancel\nReply with a number, or in your own words.',
    );
    const unknown = envelope('input_required', { kind: 'pipeline_pause_confirmation', prompt: 'Pause?', options: [{ id: 'y', label: 'Yes' }] });
    expect(readText(run([submitted, single('TASK_STATE_INPUT_REQUIRED', unknown)]))).toBe('Pause?\n1. Yes\nReply with your choice.');
  });

  it('a permission prompt in pipeline mode is shown as in normal mode, from iac_code.input', () => {
    const input = { kind: 'permission', requestTaskId: 'T', inputId: 'perm-1', toolUseId: 'tu', prompt: 'Write main.tf?' };
    const prompt = single('TASK_STATE_INPUT_REQUIRED', envelope('permission_requested', { toolName: 'write_file' }), { input });
    expect(readText(run([submitted, prompt]))).toBe('Write main.tf?\nReply "Allow once" or "Deny".');
  });

  it("failures: the step's reason; the executor's reason once, though its plain status repeats it", () => {
    const failedStep = single('TASK_STATE_FAILED', envelope('step_failed', { errorSummary: 'quota exceeded' }, step('deploy', 3)));
    const out = run([submitted, single('TASK_STATE_WORKING', text('Deploying.')), failedStep]);
    expect(readText(out)).toBe('Deploying.\nquota exceeded');
    expect(out.at(-1)).toMatchObject({ final: true, status: { state: 'failed' } });
    const executor = single('TASK_STATE_FAILED', envelope('pipeline_failed', { source: 'executor', errorSummary: 'RuntimeError: boom' }));
    expect(readText(run([submitted, executor, status('TASK_STATE_FAILED', 'RuntimeError: boom')]))).toBe('RuntimeError: boom');
    // Scrubbed as any failure's reason is.
    const leaky = single(
      'TASK_STATE_FAILED',
      envelope('step_failed', { errorSummary: 'cannot read /home/alice/.aliyun/config.json: token=abc123' }, step('deploy', 3)),
    );
    expect(readText(run([submitted, leaky]))).toBe('cannot read [path]: token=[redacted]');
  });

  it('updates that say nothing a person reads (progress, acknowledgements, envelopes of no known shape) add nothing; the turn still ends', () => {
    const out = run([
      submitted,
      single('TASK_STATE_WORKING', envelope('tool_progress', { percent: 50 })),
      batch('TASK_STATE_WORKING', [{ not: 'an envelope' }, envelope('context_usage', { used: 1 })]),
      single('TASK_STATE_COMPLETED', envelope('pipeline_completed', { totalSteps: 3 }, { visibility: 'committed' })),
    ]);
    // Nothing of the agent's: only the facade's line for a turn that completed without a word (unsaid-end.ts).
    expect(readText(out)).toBe('The agent finished without a reply.');
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:last', 'status:completed:final']);
  });

  describe('candidates whose text is held', () => {
    const wrote = batch('TASK_STATE_WORKING', [text('A one ', candidate(0, 'ECS')), text('B one', candidate(1))]);
    const blocks = 'Candidate 1 (ECS):\nA one\nCandidate 2:\nB one';

    it('are shown however the turn ends: a break-off, a plain cancel, an upstream that just stops', () => {
      expect(readText(run([submitted, wrote]))).toBe(`${blocks}\nThe upstream agent ended the stream before the turn finished`);
      expect(readText(run([submitted, wrote, status('TASK_STATE_CANCELED', 'Task canceled.')]))).toBe(`${blocks}\nTask canceled.`);
      const reply = createTurnReply(options());
      reply.push(submitted);
      reply.push(wrote);
      reply.push(status('TASK_STATE_INPUT_REQUIRED'));
      expect(readText(reply.close())).toBe('');
      const stopped = createTurnReply(options());
      [submitted, wrote, single('TASK_STATE_COMPLETED', envelope('pipeline_completed'))].forEach((event) => stopped.push(event));
      expect(readText(stopped.close())).toBe('');
    });

    it("a candidate's own question or permission prompt is shown after what the candidates wrote; its tool calls break its block", () => {
      const asks = envelope('input_required', { prompt: 'Which region?' }, candidate(1));
      const tool = envelope('tool_started', { toolName: 'price' }, candidate(0, 'ECS'));
      const out = run([submitted, wrote, single('TASK_STATE_WORKING', tool), single('TASK_STATE_INPUT_REQUIRED', asks)]);
      expect(readText(out)).toBe(`${blocks}\nWhich region?`);
      const input = { kind: 'permission', requestTaskId: 'T', inputId: 'perm-2', toolUseId: 'tu', prompt: 'Run it?' };
      const prompt = single('TASK_STATE_INPUT_REQUIRED', envelope('permission_requested', {}, candidate(0, 'ECS')), { input });
      const broken = run([
        submitted,
        wrote,
        single('TASK_STATE_WORKING', tool),
        single('TASK_STATE_WORKING', text('A two', candidate(0, 'ECS'))),
        prompt,
      ]);
      expect(readText(broken)).toBe('Candidate 1 (ECS):\nA one \nA two\nCandidate 2:\nB one\nRun it?\nReply "Allow once" or "Deny".');
    });

    it('under a2a-0.2.5 a failure with no reason keeps the blocks in the reply, not on the status', () => {
      const out = run([submitted, wrote, single('TASK_STATE_FAILED', envelope('step_failed', {}, step('plan', 1)))], options(spec));
      expect(readText(out)).toBe(blocks);
      expect(out.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
      expect(out.at(-1)).not.toHaveProperty('status.message');
    });

    describe('a file a candidate writes while the candidates write', () => {
      const file = (id: string, name: string) =>
        artifact(id, [{ raw: Buffer.from(`${name} body`).toString('base64'), filename: name, mediaType: 'text/plain' }], { lastChunk: true });
      const created = (id: string, where = candidate(0, 'ECS')) =>
        single('TASK_STATE_WORKING', envelope('artifact_created', { artifactId: id }, where));
      const done = single('TASK_STATE_WORKING', envelope('step_completed', {}, step('evaluate', 2)));

      it("is shown right after that candidate's block, whichever candidate ends first", () => {
        const out = run([
          submitted,
          wrote,
          file('f-a', 'a.yaml'),
          created('f-a'),
          single('TASK_STATE_WORKING', envelope('candidate_completed', {}, candidate(1))),
          done,
          status('TASK_STATE_COMPLETED'),
        ]);
        expect(readText(out)).toBe('Candidate 2:\nB one\nCandidate 1 (ECS):\nA one\na.yaml\n```yaml\na.yaml body\n```');
      });

      it('one no candidate claims and one of a restarted draft are shown in the order they came, once no candidate writes', () => {
        const again = { scope: 'candidate', candidate: { id: 'c0', runId: 'cand-0-2', index: 0, name: 'ECS' } };
        const out = run([
          submitted,
          wrote,
          file('f-a', 'a.txt'),
          created('f-a'),
          file('f-x', 'x.txt'),
          single('TASK_STATE_WORKING', envelope('candidate_started', {}, again)),
          done,
          status('TASK_STATE_COMPLETED'),
        ]);
        expect(readText(out)).toBe('Candidate 2:\nB one\na.txt\n```\na.txt body\n```\nx.txt\n```\nx.txt body\n```');
      });

      it('a file a candidate writes before its first word is shown with its block', () => {
        const started = batch('TASK_STATE_WORKING', [
          envelope('candidate_started', {}, candidate(0, 'ECS')),
          envelope('candidate_started', {}, candidate(1)),
        ]);
        const out = run([submitted, started, file('f-a', 'a.txt'), created('f-a'), wrote, done, status('TASK_STATE_COMPLETED')]);
        expect(readText(out)).toBe('Candidate 1 (ECS):\nA one\na.txt\n```\na.txt body\n```\nCandidate 2:\nB one');
      });

      it('is shown however the turn ends, and a file with no candidate writing is shown at once', () => {
        expect(readText(run([submitted, wrote, file('f-a', 'a.txt'), created('f-a')]))).toBe(
          'Candidate 1 (ECS):\nA one\na.txt\n```\na.txt body\n```\nCandidate 2:\nB one\nThe upstream agent ended the stream before the turn finished',
        );
        expect(readText(run([submitted, file('f-a', 'a.txt'), status('TASK_STATE_COMPLETED')]))).toBe('a.txt\n```\na.txt body\n```');
      });
    });

    it("a restarted candidate's earlier draft is dropped; a step run again says which attempt it is", () => {
      const again = { scope: 'candidate', candidate: { id: 'c0', runId: 'cand-0-2', index: 0, name: 'ECS' } };
      const out = run([
        submitted,
        wrote,
        single('TASK_STATE_WORKING', envelope('candidate_started', {}, again)),
        single('TASK_STATE_WORKING', text('A again', again)),
        single(
          'TASK_STATE_WORKING',
          envelope('step_started', { name: 'plan' }, { step: { id: 'plan', runId: 'step-plan-2', index: 1, total: 3, attempt: 2.0 } }),
        ),
      ]);
      expect(readText(out)).toBe(
        'Candidate 2:\nB one\nCandidate 1 (ECS):\nA again\nStep 1/3: Plan (attempt 2)\nThe upstream agent ended the stream before the turn finished',
      );
    });
  });

  it('a turn blocked on its backup says why; an update of tool calls alone still opens the turn', () => {
    const blocked = single('TASK_STATE_INPUT_REQUIRED', envelope('backup_blocked', { reason: 'The state backup failed; retry later.' }));
    expect(readText(run([submitted, blocked]))).toBe('The state backup failed; retry later.');
    const toolOnly = single('TASK_STATE_WORKING', envelope('tool_started', { toolName: 'bash' }));
    expect(shape(run([toolOnly]))).toEqual(['task:submitted', 'artifact:gen-2:last', 'status:failed:final']);
  });
});
