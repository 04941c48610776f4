/**
 * Wire data of the fake iac-code server (see fake-iac-code.ts): the captured event sequence of one
 * turn (docs/iac-code.md) and the SDK's rules for folding events into the stored task. Plain JSON
 * objects, as iac-code sends them. Its card is in fake-iac-code-card.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Json = Record<string, unknown>;

/** Python's `datetime.isoformat()` + Z: microsecond precision. */
export const timestamp = (): string => new Date().toISOString().replace(/Z$/, '000Z');

export interface TurnIds {
  taskId: string;
  contextId: string;
  sessionId: string;
}

const ARTIFACT_SHA = '1dcea7ea24f97e07145010de316033816c1b95cb284b42e66d3da90dac41a08c';

/** What the model says in a turn: text before the tool call, the file the tool writes, text after it. */
export interface TurnScript {
  before: string[];
  after: string[];
  /**
   * The tool's file; with `content` and `dir` it is written where iac-code keeps it:
   * `<dir>/<artifactId>/<filename>`, as `written` when given (a file changed after iac-code hashed it).
   */
  artifact: { filename: string; content?: Buffer; dir?: string; written?: Buffer };
  /** The tool asks for permission first (iac-code's default): the turn pauses until the answer comes. */
  permission?: boolean;
  /**
   * The model's provider fails after the text `before` (iac-code's ErrorEvent): the turn ends there, FAILED,
   * or INPUT_REQUIRED when `retryable`, its message the error's text under the chunks' id `<taskId>-message`.
   */
  error?: { text: string; retryable?: boolean };
}

/** The captured turn's words. */
export const CAPTURED_SCRIPT: TurnScript = { before: ['Hello ', 'world.'], after: ['Done.'], artifact: { filename: 'main.tf' } };

export function storedArtifact(artifactId: string, artifact: TurnScript['artifact']): { sha256: string; byteSize: number } {
  if (!artifact.content) return { sha256: ARTIFACT_SHA, byteSize: 14 };
  if (artifact.dir) {
    mkdirSync(join(artifact.dir, artifactId), { recursive: true });
    writeFileSync(join(artifact.dir, artifactId, artifact.filename), artifact.written ?? artifact.content);
  }
  return { sha256: createHash('sha256').update(artifact.content).digest('hex'), byteSize: artifact.content.length };
}

/**
 * The events of one normal-mode turn, as captured: the initial Task (only for a new task),
 * SUBMITTED, WORKING, text chunks, usage and tool frames, an artifact, the final WORKING with
 * `<task>-2` and assistantFinal (the text after the tool call only), then INPUT_REQUIRED.
 */
export function capturedTurn(
  ids: TurnIds,
  userMessage: Json,
  options: { newTask: boolean; rawThinking: boolean; script?: TurnScript; language?: string },
): Json[] {
  const script = options.script ?? CAPTURED_SCRIPT;
  const { taskId, contextId, sessionId } = ids;
  const meta = (extra: Json = {}): Json => ({ iac_code: { ...extra, iacCodeSessionId: sessionId } });
  const status = (state: string, extra: Json = {}, metadata: Json = meta()): Json => ({
    statusUpdate: { taskId, contextId, status: { state, ...extra }, metadata },
  });
  const agentText = (text: string, messageId = `${taskId}-message`): Json => ({
    messageId,
    contextId,
    taskId,
    role: 'ROLE_AGENT',
    parts: [{ text }],
  });
  const tool = (value: Json): Json => status('TASK_STATE_WORKING', {}, meta({ tool: value }));
  const artifactId = randomUUID();
  const { filename } = script.artifact;
  const uri = `iac-code-artifact://${artifactId}/${encodeURIComponent(filename)}`;
  const fileMeta = { mediaType: 'text/plain', ...storedArtifact(artifactId, script.artifact), uri };

  const events: Json[] = [];
  if (options.newTask) {
    events.push({
      task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [{ ...userMessage, contextId, taskId }] },
    });
  }
  events.push(status('TASK_STATE_SUBMITTED', { timestamp: timestamp() }), status('TASK_STATE_WORKING', { timestamp: timestamp() }));
  if (options.rawThinking) {
    events.push(status('TASK_STATE_WORKING', {}, meta({ thinking: { text: 'Let me think.', type: 'raw_thinking' } })));
  }
  events.push(...script.before.map((text) => status('TASK_STATE_WORKING', { message: agentText(text) })));
  if (script.error) {
    const { text, retryable = false } = script.error;
    const state = retryable ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_FAILED';
    events.push(status(state, { message: agentText(text), timestamp: timestamp() }, meta({ error: { retryable, errorId: 'err-1' } })));
    return events;
  }
  events.push(
    status('TASK_STATE_WORKING', {}, meta({ usage: { totalTokens: 15, inputTokens: 10, outputTokens: 5 } })),
    tool({ status: 'started', name: 'write_file', toolUseId: 'tu-1' }),
    tool({ status: 'input_delta', toolUseId: 'tu-1', partialJsonLength: 18 }),
    tool({
      status: 'input_complete',
      name: 'write_file',
      toolUseId: 'tu-1',
      inputSummary: { tool_name: 'write_file', fields: { path: { type: 'str' }, content: { type: 'str' } } },
    }),
  );
  const ending = (after: string[]): Json[] => [
    ...after.map((text) => status('TASK_STATE_WORKING', { message: agentText(text) })),
    status('TASK_STATE_WORKING', {}, meta({ usage: { totalTokens: 23, inputTokens: 20, outputTokens: 3 } })),
    status(
      'TASK_STATE_WORKING',
      { message: agentText(after.join(''), `${taskId}-2`), timestamp: timestamp() },
      meta({ assistantFinal: { complete: true } }),
    ),
    status('TASK_STATE_INPUT_REQUIRED', { timestamp: timestamp() }),
  ];
  if (script.permission) {
    const inputId = `permission-${randomUUID().replace(/-/g, '')}`;
    events.push(permissionPrompt(ids, inputId, options.language === 'zh' ? PERMISSION_IN_CHINESE : PERMISSION_IN_ENGLISH), {
      [AWAIT_PERMISSION]: {
        inputId,
        toolUseId: 'tu-1',
        deny: [
          tool({ status: 'failed', name: 'write_file', toolUseId: 'tu-1', result: { ok: false, error: 'Permission denied' } }),
          ...ending(PERMISSION_DENIED_AFTER),
        ],
      },
    });
  }
  events.push(
    {
      artifactUpdate: {
        taskId,
        contextId,
        lastChunk: true,
        artifact: { artifactId, name: filename, parts: [{ url: uri, metadata: fileMeta, filename, mediaType: 'text/plain' }], metadata: fileMeta },
      },
    },
    tool({
      status: 'completed',
      name: 'write_file',
      toolUseId: 'tu-1',
      result: { ok: true, artifact: { filename, mediaType: 'text/plain' } },
      artifact: { filename, ...fileMeta, artifactId },
    }),
    ...ending(script.after),
  );
  return events;
}

/** Marks where a turn waits for the permission answer; its value holds the prompt's ids and the events of a denial. */
export const AWAIT_PERMISSION = '__awaitPermission';
export const PERMISSION_DENIED_AFTER = ['Permission denied: nothing was written.'];
export const PERMISSION_PROMPT = 'Write main.tf in the workspace Allow once?';
/** The prompt of a turn that asked for Chinese (`iac_code.preferredLanguage: zh`), in the words iac-code's own tests show. */
export const PERMISSION_PROMPT_ZH = '是否允许本次操作：在工作区写入 main.tf？';

const PERMISSION_IN_ENGLISH = { prompt: PERMISSION_PROMPT, allow: 'Allow once', deny: 'Deny', language: 'en' };
const PERMISSION_IN_CHINESE = { prompt: PERMISSION_PROMPT_ZH, allow: '仅允许一次', deny: '拒绝', language: 'zh' };

/** The captured permission prompt: INPUT_REQUIRED, no message, the question in metadata.iac_code.input, in the turn's language. */
function permissionPrompt(ids: TurnIds, inputId: string, words: typeof PERMISSION_IN_ENGLISH): Json {
  const { taskId, contextId, sessionId } = ids;
  return {
    statusUpdate: {
      taskId,
      contextId,
      status: { state: 'TASK_STATE_INPUT_REQUIRED' },
      metadata: {
        iac_code: {
          input: {
            schemaVersion: 1.0,
            kind: 'permission',
            requestTaskId: taskId,
            contextId,
            inputId,
            toolUseId: 'tu-1',
            toolName: 'write_file',
            title: 'Write a file',
            purpose: 'Write the generated template.',
            effect: 'write',
            target: 'main.tf',
            isReadOnly: false,
            prompt: words.prompt,
            safeSummary: 'write_file: {"path":"main.tf"}',
            options: [
              { id: 'allow_once', label: words.allow },
              { id: 'deny', label: words.deny },
            ],
            language: words.language,
            required: true,
          },
          permission: { autoApproved: false, pending: true, toolName: 'write_file', toolUseId: 'tu-1' },
          iacCodeSessionId: sessionId,
        },
      },
    },
  };
}

/** A turn whose input has no text: the task fails at once. */
export function failedTurn(ids: TurnIds, userMessage: Json, reason = 'A2A server currently accepts text input only.'): Json[] {
  const { taskId, contextId } = ids;
  const message = {
    messageId: `${taskId}-4`,
    contextId,
    taskId,
    role: 'ROLE_AGENT',
    parts: [{ text: reason }],
  };
  return [
    { task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [{ ...userMessage, contextId, taskId }] } },
    { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_FAILED', message, timestamp: timestamp() } } },
  ];
}

/** The CANCELED status a running task gets. */
export function canceledStatus(task: Json): Json {
  const taskId = task.id as string;
  const contextId = task.contextId as string;
  return {
    statusUpdate: {
      taskId,
      contextId,
      status: {
        state: 'TASK_STATE_CANCELED',
        timestamp: timestamp(),
        message: { messageId: `${taskId}-5`, contextId, taskId, role: 'ROLE_AGENT', parts: [{ text: 'Task canceled.' }] },
      },
      metadata: (task.metadata as Json | undefined) ?? {},
    },
  };
}

/**
 * The SDK's TaskManager folding an event into the stored task: a status update moves the previous
 * status message into history and replaces top-level metadata keys. The initial Task event is
 * dropped, as it is with persistence on (so the first user message never reaches history).
 */
export function applyEvent(task: Json, event: Json): void {
  const update = event.statusUpdate as Json | undefined;
  if (update) {
    const previous = (task.status as Json).message;
    if (previous) task.history = [...((task.history as Json[] | undefined) ?? []), previous];
    task.status = update.status;
    task.metadata = { ...(task.metadata ?? {}), ...(update.metadata ?? {}) };
    return;
  }
  const artifactUpdate = event.artifactUpdate as Json | undefined;
  if (artifactUpdate) {
    const artifact = artifactUpdate.artifact as Json;
    const others = ((task.artifacts as Json[] | undefined) ?? []).filter((a) => a.artifactId !== artifact.artifactId);
    task.artifacts = [...others, artifact];
  }
}

const TERMINAL_NUMBERS: Record<string, number> = { TASK_STATE_COMPLETED: 3, TASK_STATE_FAILED: 4, TASK_STATE_CANCELED: 5, TASK_STATE_REJECTED: 7 };

/** The numeric enum iac-code prints for a terminal state, or undefined when the task accepts messages. */
export function terminalNumber(task: Json): number | undefined {
  return TERMINAL_NUMBERS[(task.status as Json).state as string];
}

/** SDK apply_history_length on a copy: absent keeps all, 0 drops history, n keeps the last n. */
export function withHistoryLength(task: Json, historyLength: unknown): Json {
  const copy = structuredClone(task);
  if (typeof historyLength !== 'number') return copy;
  const history = (copy.history as Json[] | undefined) ?? [];
  if (historyLength === 0) delete copy.history;
  else copy.history = history.slice(-historyLength);
  return copy;
}
