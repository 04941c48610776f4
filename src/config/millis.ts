import { z } from 'zod';
import { MAX_TIMER_MS } from '../timed-signal.js';

/** A bound in ms: at most what a Node timer can wait (about 24.8 days); past it a timer fires at once. */
export const Millis = z.number().int().min(0).max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days); 0 disables it`);
/** How long something is kept, in ms: compared with timestamps and given to Redis as expiry, never a timer, so not capped. */
export const KeptMillis = z.number().int().min(0);
