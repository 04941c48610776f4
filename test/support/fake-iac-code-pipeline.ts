/**
 * iac-code's pipeline mode for the fake (docs/iac-code.md, "Pipeline mode"): a conversation in three turns,
 * its envelopes shaped as iac-code's source builds them (not captured): a question (`ask_user_question`),
 * then the steps up to a choice between two candidates whose text interleaves (`candidate_selection`),
 * then the deployment of the candidate named in the answer. With `confirmsDeployment` (as the
 * `selling_solution_first` pipeline does) the deployment waits first on its user's confirmation
 * (`deployment_confirmation`, named only in the update's envelopes, never in `iac_code.input`): a structured
 * answer (`{"action":"confirm"}`) is carried out as sent, anything else goes to iac-code's model, which here
 * reads no confirmation in it and asks again. Every update carries its envelopes in
 * `metadata.iac_code.pipeline`, or several in `pipelineBatch`, with no status message. Envelopes are
 * numbered across the context's whole run, turn after turn, with the gaps iac-code leaves: a number taken
 * by an envelope it drops before publishing (a thinking chunk without raw-thinking exposure), and one taken
 * by an envelope it journals but never sends (a backup-gated envelope's `pending_backup` copy:
 * fake-iac-code-journal.ts).
 */
import { randomUUID } from 'node:crypto';
import { storedArtifact, type Json, type TurnIds } from './fake-iac-code-data.js';
import { JOURNAL_ONLY } from './fake-iac-code-journal.js';

export const PIPELINE_QUESTION = '预计访问量？';
export const PIPELINE_OPTIONS = [
  { id: 'small', label: '小型', description: '日访问量一万以内' },
  { id: 'large', label: '大型' },
];
export const CANDIDATES = [
  { name: '方案A：ECS+RDS', summary: '两台 ECS 和一个 RDS', text: ['Template A ', 'uses ECS and RDS.'] },
  { name: '方案B：SAE', summary: '无服务器应用引擎', text: ['Template B ', 'uses SAE.'] },
];
/** What the agent says in each turn, outside its questions and candidates. */
export const PIPELINE_SAYS = {
  asking: ['为了给出合适的方案，', '我需要先了解规模。'],
  beforeQuestion: '请确认：',
  planning: 'Two designs fit.',
  deploying: (choice: string) => `Deploying ${choice}.`,
  deployed: 'Stack created.',
};
export const PIPELINE_FAILURE = '部署失败：quota exceeded';
/** The deployment confirmation's question (its prompt and option names as iac-code's own tests have them). */
export const DEPLOYMENT_CONFIRMATION = {
  prompt: '请选择下一步操作',
  summary: (choice: string) => `${choice}，预计每月 ¥300。`,
  options: [
    { action: 'confirm', name: '确认部署' },
    { action: 'adjust', name: '调整参数' },
    { action: 'cancel', name: '取消' },
  ],
};
/** The answer to the candidate choice that makes the deployment step fail. */
export const FAIL_DEPLOYMENT = 'fail';
export const TEMPLATE_FILE = 'template.yaml';

const EXTENSION = 'urn:iac-code:a2a:pipeline-events:v1';
const STEPS = ['intent_parsing', 'architecture_planning', 'evaluate_candidates', 'confirm_and_select', 'deploying'];

export interface PipelineTurnOptions {
  newTask: boolean;
  /** 0: the question; 1: the candidates and the choice; 2: the deployment (or its confirmation); 3 on: the answers to that. */
  stage: number;
  /** The user's text. */
  said: string;
  /** Whether the deployment waits on its user's confirmation; then `chosen` is the candidate picked at stage 1. */
  confirmsDeployment?: boolean;
  chosen?: string;
  /** The first candidate's template: written where iac-code keeps artifacts when `dir` is given. */
  template?: { content: Buffer; dir?: string };
  /** The context's last envelope number, carried on from turn to turn (iac-code's journal high-water mark). */
  numbering: { last: number };
}

/** The updates of the pipeline turn at `options.stage` of a conversation. */
export function pipelineTurn(ids: TurnIds, userMessage: Json, options: PipelineTurnOptions): Json[] {
  const wire = pipelineWire(ids, options.numbering);
  const events: Json[] = [];
  if (options.newTask) {
    events.push({ task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [userMessage] } });
  }
  if (options.stage === 0) events.push(...asking(wire));
  else if (options.stage === 1) events.push(...planning(wire, options));
  else if (!options.confirmsDeployment) events.push(...deploying(wire, options.said, choiceReceived(wire, options.said)));
  else if (options.stage === 2) events.push(...confirming(wire, options.said, choiceReceived(wire, options.said)));
  else events.push(...confirmationAnswered(wire, options));
  return events;
}

type Wire = ReturnType<typeof pipelineWire>;

function pipelineWire(ids: TurnIds, numbering: { last: number }) {
  const { taskId, contextId, sessionId } = ids;
  const step = (id: string) => ({ id, runId: `step-${id}-1`, attempt: 1, index: STEPS.indexOf(id) + 1, total: STEPS.length });
  const candidate = (index: number) => ({ id: `evaluate_candidate_candidate_${index}`, runId: `candidate-${index}-1`, index, attempt: 1 });
  const envelope = (eventType: string, status: string, data: Json, coordinates: Json = {}): Json => ({
    schemaVersion: '1.0',
    extensionUri: EXTENSION,
    eventId: `evt-${randomUUID().replace(/-/g, '')}`,
    sequence: ++numbering.last,
    createdAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    eventType,
    scope: 'candidate' in coordinates ? 'candidate' : 'step' in coordinates ? 'step' : 'pipeline',
    pipelineRunId: contextId,
    taskId,
    contextId,
    pipelineName: 'selling',
    status,
    data,
    iacCodeSessionId: sessionId,
    ...coordinates,
  });
  /** One update: its state from the last envelope, one envelope as `pipeline`, several as `pipelineBatch`. */
  const update = (state: string, envelopes: Json[], input?: Json): Json => {
    const iacCode: Json =
      envelopes.length === 1 ? { pipeline: envelopes[0] } : { pipelineBatch: { schemaVersion: '1.0', extensionUri: EXTENSION, events: envelopes } };
    if (input) iacCode.input = input;
    return { statusUpdate: { taskId, contextId, status: { state }, metadata: { iac_code: iacCode } } };
  };
  /** A number taken by an envelope iac-code drops before it publishes or journals it. */
  const dropped = (): void => void ++numbering.last;
  return { ids, step, candidate, envelope, update, dropped };
}

const working = (wire: Wire, ...envelopes: Json[]): Json => wire.update('TASK_STATE_WORKING', envelopes);

const stepStarted = (wire: Wire, id: string): Json => {
  const step = wire.step(id);
  return working(wire, wire.envelope('step_started', 'working', { ...step, name: id, stepType: 'normal', uiMode: null }, { step }));
};

const text = (wire: Wire, stepId: string, value: string): Json =>
  wire.envelope('text_delta', 'working', { text: value }, { step: wire.step(stepId) });

function asking(wire: Wire): Json[] {
  const { taskId, contextId } = wire.ids;
  const step = wire.step('intent_parsing');
  const question = { kind: 'ask_user_question', inputId: 'ask-call_1', toolUseId: 'call_1', question: PIPELINE_QUESTION, prompt: PIPELINE_QUESTION };
  const options = { options: PIPELINE_OPTIONS, allowFreeText: true, freeTextPrompt: '' };
  return [
    { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } } },
    working(wire, wire.envelope('pipeline_started', 'working', { pipelineType: 'selling', totalSteps: STEPS.length, stepNames: STEPS })),
    stepStarted(wire, 'intent_parsing'),
    working(
      wire,
      wire.envelope('message_started', 'working', { messageId: 'msg-1' }, { step }),
      text(wire, 'intent_parsing', PIPELINE_SAYS.asking[0]!),
    ),
    working(wire, text(wire, 'intent_parsing', PIPELINE_SAYS.asking[1]!)),
    working(wire, wire.envelope('tool_started', 'working', { toolName: 'ask_user_question', toolUseId: 'call_1', input: {} }, { step })),
    wire.update(
      'TASK_STATE_INPUT_REQUIRED',
      [
        text(wire, 'intent_parsing', PIPELINE_SAYS.beforeQuestion),
        wire.envelope('input_required', 'input_required', { ...question, ...options }, { step, input: { ...question, ...options, required: true } }),
      ],
      {
        schemaVersion: 1,
        ...question,
        requestTaskId: taskId,
        contextId,
        required: true,
        allowFreeText: true,
        options: PIPELINE_OPTIONS.map(({ id, label }) => ({ id, label })),
      },
    ),
  ];
}

function planning(wire: Wire, { said, template }: PipelineTurnOptions): Json[] {
  const { taskId, contextId } = wire.ids;
  const candidates = CANDIDATES.map((_, index) => wire.candidate(index));
  const inCandidate = (index: number, eventType: string, data: Json = {}): Json =>
    wire.envelope(eventType, 'working', data, { step: wire.step('evaluate_candidates'), candidate: candidates[index] });
  const options = CANDIDATES.map(({ name, summary }, index) => ({ name, summary, candidate_index: index }));
  const choice = { stepId: 'confirm_and_select', prompt: '请选择方案', options, kind: 'candidate_selection' };
  const artifactId = randomUUID();
  const uri = `iac-code-artifact://${artifactId}/${TEMPLATE_FILE}`;
  const stored = template ? storedArtifact(artifactId, { filename: TEMPLATE_FILE, ...template }) : {};
  const fileMeta = { uri, mediaType: 'text/plain', ...stored };
  return [
    { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING' } } },
    working(
      wire,
      wire.envelope(
        'input_received',
        'working',
        { kind: 'ask_user_question', inputId: 'ask-call_1', freeText: said },
        { step: wire.step('intent_parsing') },
      ),
    ),
    working(wire, wire.envelope('step_completed', 'working', { durationS: 1.5 }, { step: wire.step('intent_parsing') })),
    stepStarted(wire, 'architecture_planning'),
    working(wire, text(wire, 'architecture_planning', PIPELINE_SAYS.planning)),
    (wire.dropped(), stepStarted(wire, 'evaluate_candidates')),
    working(wire, inCandidate(0, 'candidate_started'), inCandidate(1, 'candidate_started')),
    // The candidates write at once: their chunks interleave.
    working(wire, inCandidate(0, 'text_delta', { text: CANDIDATES[0]!.text[0] }), inCandidate(1, 'text_delta', { text: CANDIDATES[1]!.text[0] })),
    working(wire, inCandidate(1, 'text_delta', { text: CANDIDATES[1]!.text[1] }), inCandidate(0, 'text_delta', { text: CANDIDATES[0]!.text[1] })),
    {
      artifactUpdate: {
        taskId,
        contextId,
        append: false,
        lastChunk: true,
        artifact: {
          artifactId,
          name: TEMPLATE_FILE,
          metadata: fileMeta,
          parts: [{ url: uri, filename: TEMPLATE_FILE, mediaType: 'text/plain', metadata: fileMeta }],
        },
      },
    },
    working(wire, inCandidate(0, 'artifact_created', { source: 'conclusion', artifactId, filename: TEMPLATE_FILE, uri })),
    working(wire, inCandidate(0, 'candidate_completed'), inCandidate(1, 'candidate_completed')),
    working(wire, wire.envelope('step_completed', 'working', { durationS: 9.5 }, { step: wire.step('evaluate_candidates') })),
    stepStarted(wire, 'confirm_and_select'),
    wire.update(
      'TASK_STATE_INPUT_REQUIRED',
      [
        wire.envelope('step_completed', 'working', { conclusion: { user_prompt: '请选择方案', options } }, { step: wire.step('confirm_and_select') }),
        wire.envelope('input_required', 'input_required', choice, { step: wire.step('confirm_and_select') }),
      ],
      {
        schemaVersion: 1,
        kind: 'candidate_selection',
        requestTaskId: taskId,
        contextId,
        inputId: 'input-choice',
        prompt: '请选择方案',
        required: true,
        options: CANDIDATES.map(({ name, summary }, index) => ({ id: String(index), label: name, summary })),
      },
    ),
  ];
}

/** The answer to the candidate choice, received; the deployment step begins. */
const choiceReceived = (wire: Wire, said: string): Json[] => [
  working(
    wire,
    wire.envelope('input_received', 'working', { kind: 'candidate_selection', selectedValue: said }, { step: wire.step('confirm_and_select') }),
  ),
  stepStarted(wire, 'deploying'),
];

/** The deployment asks its user to confirm: the question is in the envelope alone (no `iac_code.input`). */
function confirming(wire: Wire, chosen: string, begun: Json[], answerReceived?: Json): Json[] {
  const step = wire.step('deploying');
  const question = {
    kind: 'deployment_confirmation',
    prompt: DEPLOYMENT_CONFIRMATION.prompt,
    solution_summary: DEPLOYMENT_CONFIRMATION.summary(chosen),
    template_url: TEMPLATE_FILE,
    options: DEPLOYMENT_CONFIRMATION.options,
  };
  return [
    ...begun,
    ...(answerReceived ? [answerReceived] : []),
    wire.update('TASK_STATE_INPUT_REQUIRED', [wire.envelope('input_required', 'input_required', question, { step })]),
  ];
}

/** iac-code's answer to the confirmation: a structured `confirm` deploys; its model reads no confirmation in anything else. */
function confirmationAnswered(wire: Wire, { said, chosen = '' }: PipelineTurnOptions): Json[] {
  const received = working(
    wire,
    wire.envelope('input_received', 'working', { kind: 'deployment_confirmation', userInputLength: said.length }, { step: wire.step('deploying') }),
  );
  if (structuredAction(said) === 'confirm') return deploying(wire, chosen, [received]);
  return confirming(wire, chosen, [], received);
}

/** The action of a structured answer, as iac-code parses one (`parse_deployment_confirmation`); natural language has none. */
function structuredAction(said: string): string | undefined {
  try {
    const parsed = JSON.parse(said) as unknown;
    const action = parsed && typeof parsed === 'object' ? (parsed as Json).action : undefined;
    return typeof action === 'string' ? action.trim().toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function deploying(wire: Wire, choice: string, begun: Json[]): Json[] {
  const step = wire.step('deploying');
  const started = [
    ...begun,
    working(wire, text(wire, 'deploying', PIPELINE_SAYS.deploying(choice))),
    working(wire, wire.envelope('tool_started', 'working', { toolName: 'ros_create_stack', toolUseId: 'call_9', input: {} }, { step })),
  ];
  if (choice === FAIL_DEPLOYMENT) {
    const failure = { error: PIPELINE_FAILURE, errorSummary: PIPELINE_FAILURE, errorDetails: { type: 'StepFailed', errorId: 'err-1' } };
    return [...started, wire.update('TASK_STATE_FAILED', [wire.envelope('step_failed', 'failed', failure, { step })])];
  }
  const done = [
    working(
      wire,
      wire.envelope('tool_result', 'working', { toolName: 'ros_create_stack', toolUseId: 'call_9', isError: false, result: 'ok' }, { step }),
    ),
    working(wire, text(wire, 'deploying', PIPELINE_SAYS.deployed)),
  ];
  const completion = { totalSteps: STEPS.length };
  const pending = { ...wire.envelope('pipeline_completed', 'completed', completion), visibility: 'pending_backup' };
  const completed = wire.update('TASK_STATE_COMPLETED', [
    { ...wire.envelope('pipeline_completed', 'completed', completion), visibility: 'committed' },
  ]);
  // The backup-gated end: its pending copy is journaled first under a number of its own, and never sent.
  (completed as Record<symbol, Json[]>)[JOURNAL_ONLY] = [pending];
  return [...started, ...done, completed];
}
