/**
 * Resolves once a callback of `waiters` is called (whoever ends what is waited for calls each one) or after `ms`,
 * whichever comes first; its callback leaves the set either way. A set of callbacks rather than a promise raced
 * against the end: a race's reactions stay on that promise until it settles, a few hundred bytes per waiter that
 * gave up, for as long as the awaited end takes (an iac-code turn: minutes).
 */
export function wokenWithin(waiters: Set<() => void>, ms: number): Promise<void> {
  return new Promise<void>((done) => {
    const woken = (): void => {
      clearTimeout(timer);
      waiters.delete(woken);
      done();
    };
    const timer = setTimeout(woken, ms);
    waiters.add(woken);
  });
}
