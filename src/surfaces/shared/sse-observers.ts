import type { SseEnd, SseObserver } from './sse-channel-types.js';
import type { SseFrame } from './sse-frames.js';
import { appended } from '../../core/small-lists.js';

/** Who watches one stream: told of its first event, of every frame (those with a frame hook) and once of its end. */
export class SseObservers {
  /** Made on the first observer (small-lists.ts): a stream has one or two, for as long as it is open. */
  private all: SseObserver[] | undefined;
  /** The observers with a frame hook: none on most streams, so a frame costs one check. */
  private framed: SseObserver[] | undefined;
  private sawEvent = false;

  add(observer: SseObserver): void {
    this.all = appended(this.all, observer);
    if (observer.frame) this.framed = appended(this.framed, observer);
  }

  frame(frame: SseFrame): void {
    if (!this.framed) return;
    for (const observer of this.framed) observer.frame!(frame);
  }

  /** An event (not a comment) was handed out: the first one is told. */
  event(): void {
    if (this.sawEvent) return;
    this.sawEvent = true;
    if (!this.all) return;
    for (const observer of this.all) observer.firstEvent?.();
  }

  /** Tells each observer how the stream ended, once: they are dropped. */
  end(outcome: SseEnd): void {
    const observers = this.all;
    this.all = undefined;
    this.framed = undefined;
    if (!observers) return;
    for (const observer of observers) observer.end(outcome);
  }
}
