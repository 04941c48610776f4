import { SteppedStage, type Step } from '../../../core/stepped-stages.js';

const END: Step<never> = { items: [], end: true };

/**
 * A stream's events, its error before the first one told as `told` says: that error is the answer to the call
 * (a plain 0.2.5 error, as message/send's), so it is told in the turn's language as message/send's is. A stage
 * (core/stepped-stages.ts), read through with the layers below it.
 */
export function toldBeforeFirstEvent<T>(source: AsyncIterable<T>, told: (error: unknown) => Promise<unknown>): AsyncIterableIterator<T> {
  return new ToldBeforeFirstEvent(source, told);
}

class ToldBeforeFirstEvent<T> extends SteppedStage<T, T> {
  #began = false;

  constructor(
    private readonly events: AsyncIterable<T>,
    private readonly told: (error: unknown) => Promise<unknown>,
  ) {
    super();
  }

  protected open(): AsyncIterator<T> {
    return this.events[Symbol.asyncIterator]();
  }

  protected step(result: IteratorResult<T>): Step<T> {
    if (result.done) return END;
    this.#began = true;
    return { items: [result.value] };
  }

  protected override async recover(error: unknown): Promise<Step<T>> {
    throw this.#began ? error : await this.told(error);
  }
}
