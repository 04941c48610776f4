import { A2AError } from '../../model/index.js';
import type { SseOptions } from './sse-channel-types.js';
import type { SseFrame } from './sse-frames.js';

/**
 * `onError`'s frames for `error`. Where rendering it throws (`broke`), the frames of a plain -32603
 * "Internal error" instead: the stream's own renderer, so still the caller's protocol, and nothing
 * of the failure; none only if that throws too.
 */
export function errorFrames(options: Pick<SseOptions, 'onError'>, error: unknown): { frames: SseFrame[]; broke: boolean } {
  try {
    return { frames: rendered(options, error), broke: false };
  } catch {
    try {
      return { frames: rendered(options, A2AError.internal()), broke: true };
    } catch {
      return { frames: [], broke: true };
    }
  }
}

function rendered(options: Pick<SseOptions, 'onError'>, error: unknown): SseFrame[] {
  const frames = options.onError(error);
  return frames === undefined ? [] : Array.isArray(frames) ? frames : [frames];
}
