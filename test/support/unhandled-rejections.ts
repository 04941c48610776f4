/**
 * The rejections nobody handled while `run` ran and for `settleMs` after it. Node ends the process on an
 * unhandled rejection, so for the gateway any entry is a crash; vitest reports them too, but only as a
 * run-level error, after the test that caused one has passed.
 */
export async function unhandledRejectionsDuring(run: () => Promise<unknown>, settleMs: number): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const note = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', note);
  try {
    await run();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
  } finally {
    process.off('unhandledRejection', note);
  }
  return unhandled;
}
