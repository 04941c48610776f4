import type { TaskStatus } from '../../model/index.js';
import { statusText } from './expiry.js';

/**
 * iac-code runs one turn per context (docs/iac-code.md, "One turn per context"): a message that opens a new task of a
 * context whose turn still runs waits a second for that turn to end, then fails its task with these words alone,
 * English whatever the turn's language; the message was not read. (A message that names the running task gets the same
 * FAILED status in that task, which ends the running turn's stream too: there the words are not its caller's answer.)
 */
const BUSY_CONTEXT = /^Task is already working\.?$/;

/** Whether `status` is that refusal: FAILED, its only words iac-code's. */
export const refusedAsBusy = (status: TaskStatus | undefined): boolean =>
  status?.state === 'TASK_STATE_FAILED' && BUSY_CONTEXT.test(statusText(status) ?? '');
