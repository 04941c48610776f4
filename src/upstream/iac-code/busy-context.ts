import type { TaskStatus } from '../../model/index.js';
import { statusText } from './expiry.js';

/**
 * iac-code runs one turn per context (docs/iac-code.md, "One turn per context"): a message that reaches a context whose
 * turn still runs (a new task of it, a follow-up of a task of it that waits for input, a follow-up into the running
 * task itself) waits a second for that turn to end, then fails its task with these words alone, English whatever the
 * turn's language; the message was not read. (Into the running task, the same FAILED status reaches the running turn's
 * own stream too, after its words, while that turn goes on.)
 */
const BUSY_CONTEXT = /^Task is already working\.?$/;

/** Whether `status` is that refusal: FAILED, its only words iac-code's. */
export const refusedAsBusy = (status: TaskStatus | undefined): boolean =>
  status?.state === 'TASK_STATE_FAILED' && BUSY_CONTEXT.test(statusText(status) ?? '');

/**
 * Whether `status` ends a turn that iac-code refused as busy: that refusal, in a turn whose reply showed nothing before
 * it (`saidNothing`), a new task's or a follow-up's alike. After the turn's words, the same status is the one put into a
 * running task, read by that turn's own stream: words its user did not ask, read as the agent said them.
 */
export const turnRefusedAsBusy = (status: TaskStatus | undefined, saidNothing: boolean): boolean => saidNothing && refusedAsBusy(status);
