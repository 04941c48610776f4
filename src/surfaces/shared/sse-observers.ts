import type { SseEnd, SseObserver } from './sse-channel-types.js';
import type { SseFrame } from './sse-frames.js';

/** Who watches one stream: told of its first event, of every frame (those with a frame hook) and once of its end. */
export class SseObservers {
  private readonly all: SseObserver[] = [];
  /** The observers with a frame hook: none on most streams, so a frame costs one length check. */
  private readonly framed: SseObserver[] = [];
  private sawEvent = false;

  add(observer: SseObserver): void {
    this.all.push(observer);
    if (observer.frame) this.framed.push(observer);
  }

  frame(frame: SseFrame): void {
    for (const observer of this.framed) observer.frame!(frame);
  }

  /** An event (not a comment) was handed out: the first one is told. */
  event(): void {
    if (this.sawEvent) return;
    this.sawEvent = true;
    for (const observer of this.all) observer.firstEvent?.();
  }

  /** Tells each observer how the stream ended, once: they are dropped. */
  end(outcome: SseEnd): void {
    const observers = this.all.splice(0);
    this.framed.length = 0;
    for (const observer of observers) observer.end(outcome);
  }
}
