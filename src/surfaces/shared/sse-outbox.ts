import type { SseFrame } from './sse-frames.js';

/**
 * The text an SSE stream has queued for its writer, and the frame a write of what the writer took
 * acknowledges: the last one in it.
 */
export class SseOutbox {
  private readonly texts: string[] = [];
  /** The last frame queued, then the last in the text handed to the writer: what `written` acknowledges. */
  private lastQueued: SseFrame | undefined;
  private handed: SseFrame | undefined;

  get empty(): boolean {
    return this.texts.length === 0;
  }

  /** `frame`: the frame `text` renders; none for a comment or a keep-alive. */
  push(text: string, frame?: SseFrame): void {
    this.texts.push(text);
    if (frame !== undefined) this.lastQueued = frame;
  }

  /** Everything queued, as one text. */
  take(): string {
    const text = this.texts.length === 1 ? this.texts[0]! : this.texts.join('');
    this.texts.length = 0;
    // A take of keep-alives alone leaves the frame handed before it to be acknowledged.
    if (this.lastQueued) {
      this.handed = this.lastQueued;
      this.lastQueued = undefined;
    }
    return text;
  }

  /** The last frame of the text taken since this was last asked, if any. */
  takeHanded(): SseFrame | undefined {
    const frame = this.handed;
    this.handed = undefined;
    return frame;
  }
}
