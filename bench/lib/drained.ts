import type { ServerResponse } from 'node:http';

/**
 * The next 'drain' or 'close' of `res`, whichever comes first. Both listeners go once either fires:
 * `once` on each would leave a 'close' listener behind per wait, and a long stream piles them up.
 */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}
