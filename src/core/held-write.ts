import { eventTaskState, type StreamResponse, type TaskState } from '../model/index.js';

/** What a write held, for the log: how many events of which kinds, and the state it would leave (never their content). */
export function heldWrite(batch: readonly StreamResponse[]): { events: number; kinds: string[]; state?: TaskState } {
  const kinds = [...new Set(batch.map((event) => Object.keys(event)[0] ?? ''))];
  const state = batch.map(eventTaskState).findLast((found) => found !== undefined);
  return { events: batch.length, kinds, ...(state ? { state } : {}) };
}
