/**
 * Whether `promise` (which never rejects) settles within `ms`; the timer never outlives the answer. One promise and
 * a timer, not a race of two promises in an async function's: a conversation's every later facade message waits on
 * it (core/gateway.ts turnLetGo), and with `store: redis` so does each read of a lane (context-lanes-redis.ts).
 */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), ms);
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
