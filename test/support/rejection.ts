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
