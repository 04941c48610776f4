/**
 * A gate that lets at most `limit` of the calls given to it run at once, the others waiting their turn in the
 * order they came: a slot a call frees goes to the next one waiting.
 */
export function concurrencyLimit(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (run) => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
