import { errors, type Dispatcher } from 'undici';

/**
 * A request's signal as undici uses it (core/util.js addAbortListener): an AbortSignal, or an emitter of
 * 'abort' with `aborted` and `reason`, as CallBound is (call-bound.ts). undici's own type says only
 * `EventEmitter`, which names none of this.
 */
type RequestSignal =
  | AbortSignal
  | {
      aborted?: boolean;
      reason?: unknown;
      once(event: 'abort', listener: () => void): unknown;
      removeListener(event: 'abort', listener: () => void): unknown;
    };

/** The error undici rejects an aborted request with (api/api-request.js), so callers classify it as before. */
const abortError = (signal: RequestSignal): unknown => signal.reason ?? new errors.RequestAbortedError();

/**
 * `dispatcher.request(options)`, rejected as soon as `options.signal` fires. undici (7.x; nodejs/undici#386)
 * reads a request's signal only once the request reaches a connection: one queued behind a capped pool
 * whose connections are all held by streams (`upstream.connections`), or waiting for a connection still
 * being made, kept its caller waiting, past a request timeout or a hang-up, until a connection freed.
 * undici itself never writes such a request: on reaching the connection it finds its abort and drops it
 * (so it never reaches the agent, and `undici:request:bodySent` never tells, sent-body.ts); its late
 * rejection goes to the handler below. An abort after the response started is undici's own to handle:
 * its listener, added before this one, destroys the body. An already aborted request is not dispatched
 * at all (undici would queue it and make a connection for it before noticing).
 */
export function requestUntilAborted(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  const signal = options.signal as RequestSignal | null | undefined;
  if (!signal) return dispatcher.request(options);
  if (signal.aborted) return Promise.reject(abortError(signal));
  const answer = dispatcher.request(options);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    listen(signal, onAbort);
    answer.then(
      (response) => {
        unlisten(signal, onAbort);
        resolve(response);
      },
      (error: unknown) => {
        unlisten(signal, onAbort);
        reject(error);
      },
    );
  });
}

function listen(signal: RequestSignal, listener: () => void): void {
  if ('addEventListener' in signal) signal.addEventListener('abort', listener, { once: true });
  else signal.once('abort', listener);
}

function unlisten(signal: RequestSignal, listener: () => void): void {
  if ('removeEventListener' in signal) signal.removeEventListener('abort', listener);
  else signal.removeListener('abort', listener);
}
