import type { Redis } from 'ioredis';

/** One note as a read of several on one connection asks it: its key, and what its stored text reads as. */
export interface KeyedRead<T> {
  key: string;
  read(text: string | null | undefined): T | undefined;
}

type ReadValues<R> = { [K in keyof R]: R[K] extends KeyedRead<infer T> ? T | undefined : never };

/**
 * The notes `reads` names, in one MGET (one round trip, where reading them one by one took one each). Best effort, as
 * each note's own read: a store that cannot answer reads as no notes.
 */
export async function readTogether<R extends Record<string, KeyedRead<unknown>>>(redis: Redis, reads: R): Promise<ReadValues<R>> {
  const names = Object.keys(reads);
  const texts = await redis.mget(names.map((name) => reads[name]!.key)).catch(() => undefined);
  return Object.fromEntries(names.map((name, at) => [name, reads[name]!.read(texts?.[at])])) as ReadValues<R>;
}
