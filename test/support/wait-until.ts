/**
 * Polls until `check` holds (state no event announces: a Redis key, a file's contents), failing after `timeoutMs`;
 * every `intervalMs`, longer where each check is itself a costly request.
 */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5_000, intervalMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`the condition did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
