/**
 * On Node 20 every AbortSignal and every web ReadableStream has a hidden class of its own (node makes each one and
 * then changes its prototype or its properties), so a property read on one misses V8's caches every time, the
 * megamorphic one too, and costs a runtime lookup: some 2,000 instructions (bench/README.md, forty-eighth pass).
 * On paths every call takes, the methods are read here once, from their prototype, and called on the instance.
 * Node's own code inside them still reads the instance; only the caller's read is saved.
 */
const { addEventListener, removeEventListener } = EventTarget.prototype;
const { getReader } = ReadableStream.prototype;

/** `signal.addEventListener('abort', listener, { once: true })`. */
export const onceAborted = (signal: AbortSignal, listener: () => void): void => addEventListener.call(signal, 'abort', listener, { once: true });

/** `signal.removeEventListener('abort', listener)`. */
export const offAborted = (signal: AbortSignal, listener: () => void): void => removeEventListener.call(signal, 'abort', listener);

/** `body.getReader()`. */
export const readerOf = <T>(body: ReadableStream<T>): ReadableStreamDefaultReader<T> => getReader.call(body) as ReadableStreamDefaultReader<T>;
