import { expect } from 'vitest';
import { A2AError } from '../../src/model/index.js';

/** The A2AError a call fails with; the test fails when the call succeeds or throws anything else. */
export async function rejection(promise: Promise<unknown>): Promise<A2AError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(A2AError);
  return error as A2AError;
}

/** The ErrorInfo reason an SDK call (or a stream's first step) fails with, whatever the binding; 'answered' when it does not fail. */
export async function reasonOf(call: Promise<unknown> | AsyncIterable<unknown>): Promise<string> {
  try {
    if (Symbol.asyncIterator in call) {
      const iterator = call[Symbol.asyncIterator]();
      await iterator.next();
      await iterator.return?.();
    } else await call;
  } catch (error) {
    return String((error as { reason?: unknown }).reason ?? error);
  }
  return 'answered';
}
