import { deferIterable } from '../../../core/iterables.js';
import type { SendMessageRequest, StreamResponse } from '../../../model/index.js';
import type { LaterImages } from '../input.js';

/** The request the turn sends upstream: with its URL images, once they are in. */
export async function withLaterImages(request: SendMessageRequest, images: LaterImages | undefined): Promise<SendMessageRequest> {
  return images ? (await images)(request) : request;
}

/**
 * A streamed turn that waits for its URL images: accepted at once (on its first read), sent once they are in, not at
 * all if the caller left meanwhile. Once sent, a layer above reads the turn's events directly (core/iterable-forwarders.ts).
 */
export function afterImages(
  request: SendMessageRequest,
  images: LaterImages,
  signal: AbortSignal,
  onAccepted: () => void,
  send: (request: SendMessageRequest, onAccepted: () => void) => AsyncIterable<StreamResponse>,
): AsyncIterable<StreamResponse> {
  return deferIterable(async () => {
    onAccepted();
    const withImages = await withLaterImages(request, images);
    return signal.aborted ? NOTHING : send(withImages, onAccepted);
  });
}

const NOTHING: AsyncIterable<never> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }) };
