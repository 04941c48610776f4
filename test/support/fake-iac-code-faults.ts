/**
 * The faults the fake iac-code (fake-iac-code.ts) can inject, chosen per request (first match): the
 * injectFault() queue, header `x-fake-fault`, a `[fault:<name> after=<n> ms=<n>]` directive in the
 * message text, then options.fault().
 *   kill-mid-stream        socket destroyed after `after` frames (default 3; unary: half the body); `gap`: see Fault
 *   end-mid-stream         ends the response cleanly after `after` frames, turn unfinished
 *   hang-before-headers    never answers
 *   hang-mid-stream        stops after `after` frames (unary: half the body) and never ends
 *   quiet                  pauses `ms` (default 500) after `after` frames, then goes on
 *   non-json               unary: 200 application/json `<html>…`; stream: first data is not JSON
 *   wrong-id               JSON-RPC id "wrong-id" on the response / every frame
 *   invalid-result         unary: a result that is not the method's shape
 *   internal-error         -32603 whose message holds a traceback, paths and a bearer token
 *   http-500               HTTP 500 text/plain
 *   http-401               HTTP 401 text/plain: the gateway's credentials refused (rotated at the agent mid-turn)
 *   trickle                body written one byte at a time
 *   no-trailing-blank-line the last SSE frame is not followed by a blank line
 *   ping                   a `: ping - <time>` comment before every frame
 *   error-event            `event: error` frame (internal-error payload) after `after` frames, then end
 */

export type FaultName =
  | 'kill-mid-stream'
  | 'end-mid-stream'
  | 'hang-before-headers'
  | 'hang-mid-stream'
  | 'quiet'
  | 'non-json'
  | 'wrong-id'
  | 'invalid-result'
  | 'internal-error'
  | 'http-500'
  | 'http-401'
  | 'trickle'
  | 'no-trailing-blank-line'
  | 'ping'
  | 'error-event';

export interface Fault {
  name: FaultName;
  /** Frames written before the fault strikes (stream faults); default 3. */
  after?: number;
  /** Length of a `quiet` pause; default 500. */
  ms?: number;
  /**
   * kill-mid-stream, end-mid-stream of a new turn: the turn goes on for `gap` events past the break, then
   * waits for a SubscribeToTask (at most 5 s) before it goes on, so the subscriber's snapshot holds
   * exactly those. Without it the turn runs at its own pace.
   */
  gap?: number;
}

/** What `internal-error` answers: a traceback with local paths and a bearer token the gateway must never pass on. */
export const LEAKY_MESSAGE =
  'RuntimeError: failed to read /home/alice/.iac-code/a2a/tasks/x.json with Bearer sk-live-0123456789abcdef\n' +
  'Traceback (most recent call last):\n  File "/usr/lib/python3.11/site-packages/iac_code/a2a/executor.py", line 12, in run\n';

/** The fault a `[fault:<name> after=<n> ms=<n>]` directive names. */
export function parseDirective(text: string): Fault | undefined {
  const match = /\[fault:([a-z0-9-]+)((?:\s+\w+=\d+)*)\]/.exec(text);
  if (!match) return undefined;
  const fault: Fault = { name: match[1] as FaultName };
  for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)=(\d+)/g)) {
    if (key === 'after') fault.after = Number(value);
    if (key === 'ms') fault.ms = Number(value);
  }
  return fault;
}
