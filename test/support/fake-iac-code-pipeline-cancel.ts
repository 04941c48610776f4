/**
 * A pipeline task waiting for its user's input, canceled through iac-code's sidecar (read in its source:
 * `cancel_waiting_input_task_from_sidecar`): a `pipeline_canceled` envelope, numbered on after the context's last,
 * ends the task CANCELED.
 */
import { randomUUID } from 'node:crypto';
import type { Json } from './fake-iac-code-data.js';

/** The CANCELED update of `task` (its envelope numbered from `numbering`), or undefined when it waits on no pipeline input. */
export function sidecarCancel(task: Json, numbering: { last: number }): Json | undefined {
  const iacCode = (task.metadata as Json | undefined)?.iac_code as Json | undefined;
  const last = (((iacCode?.pipelineBatch as Json | undefined)?.events as Json[] | undefined)?.at(-1) ?? iacCode?.pipeline) as Json | undefined;
  if ((task.status as Json).state !== 'TASK_STATE_INPUT_REQUIRED' || last?.status !== 'input_required') return undefined;
  // The run's own fields (ids, pipeline, session) as its last envelope has them; a cancel has no step.
  const { step: _step, input: _input, ...run } = last;
  const canceled: Json = {
    ...run,
    eventId: `evt-${randomUUID().replace(/-/g, '')}`,
    sequence: ++numbering.last,
    eventType: 'pipeline_canceled',
    scope: 'pipeline',
    status: 'canceled',
    data: { source: 'a2a_cancel', reason: 'Task canceled.' },
  };
  return {
    statusUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      status: { state: 'TASK_STATE_CANCELED' },
      metadata: { iac_code: { pipeline: canceled } },
    },
  };
}
