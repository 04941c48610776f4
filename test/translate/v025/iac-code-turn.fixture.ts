import type { StreamResponse } from '../../../src/model/index.js';

/**
 * The captured iac-code turn (docs/iac-code.md, "A turn on the wire"), frame by frame (the `result` of each SSE
 * event; ids shortened there to TASK/CTX/SESS/ART as in the capture).
 */
const SESS = { iacCodeSessionId: 'SESS' };
const working = (extra: Record<string, unknown>, message?: Record<string, unknown>, timestamp?: string) => ({
  statusUpdate: {
    taskId: 'TASK',
    contextId: 'CTX',
    status: { state: 'TASK_STATE_WORKING', ...(message ? { message } : {}), ...(timestamp ? { timestamp } : {}) },
    metadata: { iac_code: { ...extra, ...SESS } },
  },
});
const chunk = (text: string) => ({ messageId: 'TASK-message', contextId: 'CTX', taskId: 'TASK', role: 'ROLE_AGENT', parts: [{ text }] });
const ARTIFACT_META = {
  mediaType: 'text/plain',
  sha256: '1dcea7ea24f97e07145010de316033816c1b95cb284b42e66d3da90dac41a08c',
  uri: 'iac-code-artifact://ART/main.tf',
  byteSize: 14.0,
};

export const IAC_CODE_TURN = [
  {
    task: {
      id: 'TASK',
      contextId: 'CTX',
      status: { state: 'TASK_STATE_SUBMITTED' },
      history: [
        {
          messageId: 'msg-1',
          contextId: 'CTX',
          taskId: 'TASK',
          role: 'ROLE_USER',
          parts: [{ text: 'make vpc' }],
          metadata: { iac_code: { cwd: '/home/user/project' } },
        },
      ],
    },
  },
  {
    statusUpdate: {
      taskId: 'TASK',
      contextId: 'CTX',
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-11-29T11:25:08.861112Z' },
      metadata: { iac_code: SESS },
    },
  },
  {
    statusUpdate: {
      taskId: 'TASK',
      contextId: 'CTX',
      status: { state: 'TASK_STATE_WORKING', timestamp: '2026-11-29T11:25:08.861276Z' },
      metadata: { iac_code: SESS },
    },
  },
  working({ thinking: { text: 'Let me think.', type: 'raw_thinking' } }),
  working({}, chunk('Hello ')),
  working({}, chunk('world.')),
  working({ usage: { totalTokens: 15.0, inputTokens: 10.0, outputTokens: 5.0 } }),
  working({ tool: { status: 'started', name: 'write_file', toolUseId: 'tu-1' } }),
  working({ tool: { status: 'input_delta', toolUseId: 'tu-1', partialJsonLength: 18.0 } }),
  working({
    tool: {
      status: 'input_complete',
      name: 'write_file',
      inputSummary: { tool_name: 'write_file', fields: { path: { type: 'str' }, content: { type: 'str' } } },
      toolUseId: 'tu-1',
    },
  }),
  {
    artifactUpdate: {
      taskId: 'TASK',
      contextId: 'CTX',
      artifact: {
        artifactId: 'ART',
        name: 'main.tf',
        parts: [{ url: 'iac-code-artifact://ART/main.tf', metadata: ARTIFACT_META, filename: 'main.tf', mediaType: 'text/plain' }],
        metadata: ARTIFACT_META,
      },
      lastChunk: true,
    },
  },
  working({
    tool: {
      status: 'completed',
      name: 'write_file',
      result: { ok: true, artifact: { filename: 'main.tf', mediaType: 'text/plain' } },
      toolUseId: 'tu-1',
      artifact: { filename: 'main.tf', ...ARTIFACT_META, artifactId: 'ART' },
    },
  }),
  working({}, chunk('Done.')),
  working({ usage: { totalTokens: 23.0, inputTokens: 20.0, outputTokens: 3.0 } }),
  working(
    { assistantFinal: { complete: true } },
    { messageId: 'TASK-2', contextId: 'CTX', taskId: 'TASK', role: 'ROLE_AGENT', parts: [{ text: 'Done.' }] },
    '2026-11-29T11:25:08.873637Z',
  ),
  {
    statusUpdate: {
      taskId: 'TASK',
      contextId: 'CTX',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-11-29T11:25:08.883468Z' },
      metadata: { iac_code: SESS },
    },
  },
] as StreamResponse[];

/** What the text chunks of this turn join to (Hello + world. before the tool call, Done. after it). */
export const IAC_CODE_TURN_TEXT = 'Hello world.Done.';

/** The blocking (SendMessage) result of a 3-chunk turn, as captured: every chunk AND the aggregate in history. */
export const IAC_CODE_BLOCKING_TASK = {
  id: 'c50ca03f',
  contextId: '25a5c196',
  status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-11-29T11:25:08.997337Z' },
  artifacts: [
    {
      artifactId: 'ea7aff6c',
      name: 'main.tf',
      parts: [{ url: 'iac-code-artifact://ea7aff6c/main.tf', metadata: { mediaType: 'text/plain' }, filename: 'main.tf', mediaType: 'text/plain' }],
      metadata: { mediaType: 'text/plain' },
    },
  ],
  history: [
    { messageId: 'c50ca03f-message', contextId: '25a5c196', taskId: 'c50ca03f', role: 'ROLE_AGENT', parts: [{ text: 'Hello ' }] },
    { messageId: 'c50ca03f-message', contextId: '25a5c196', taskId: 'c50ca03f', role: 'ROLE_AGENT', parts: [{ text: 'world.' }] },
    { messageId: 'c50ca03f-message', contextId: '25a5c196', taskId: 'c50ca03f', role: 'ROLE_AGENT', parts: [{ text: 'Done.' }] },
    { messageId: 'c50ca03f-2', contextId: '25a5c196', taskId: 'c50ca03f', role: 'ROLE_AGENT', parts: [{ text: 'Done.' }] },
  ],
  metadata: { iac_code: { iacCodeSessionId: '67c494f2' } },
} as const;
