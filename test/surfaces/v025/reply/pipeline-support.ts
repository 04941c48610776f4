/** iac-code pipeline updates as the reducer tests build them: envelopes, where they happened, one or a batch per update. */
import type { StreamResponse, TaskState } from '../../../../src/model/index.js';

export type Envelope = Record<string, unknown>;

export const envelope = (eventType: string, data: Envelope = {}, extra: Envelope = {}): Envelope => ({
  schemaVersion: '1.0',
  eventType,
  scope: 'step',
  status: 'working',
  data,
  ...extra,
});
export const step = (id: string, index: number) => ({ step: { id, runId: `step-${id}-1`, index: index + 0.0, total: 3.0 } });
export const candidate = (index: number, name?: string) => ({
  scope: 'candidate',
  candidate: { id: `c${index}`, runId: `cand-${index}`, index, ...(name ? { name } : {}) },
});

export const single = (state: TaskState, one: Envelope, iacCode: Envelope = {}): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state }, metadata: { iac_code: { pipeline: one, ...iacCode } } },
});
export const batch = (state: TaskState, events: Envelope[], iacCode: Envelope = {}): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state },
    metadata: { iac_code: { pipelineBatch: { schemaVersion: '1.0', events }, ...iacCode } },
  },
});

export const text = (value: string, where: Envelope = step('plan', 1)) => envelope('text_delta', { text: value }, where);
