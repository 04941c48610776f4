import { pino, type DestinationStream } from 'pino';

/** How long the exit flush waits for a reader that is there but not reading (a full pipe) before giving up. */
const EXIT_FLUSH_MS = 2_000;

/**
 * Stdout as pino's default has it (asynchronous writes, so a slow log reader never holds a request up, and the
 * lines still buffered written synchronously at exit), except that the exit flush always ends. Its writer
 * (sonic-boom) retries a full pipe forever and, from 5.x on, throws on any other error: a reader gone at
 * shutdown (`| pino-pretty` killed by the same Ctrl-C, a log shipper that died first) made the exit flush hit
 * EPIPE, and the gateway hung forever (4.x retried EPIPE too; 5.x throws it out of `process.exit`, to whatever
 * called it). Here a reader gone drops the unwritten lines, and a reader not reading gets EXIT_FLUSH_MS.
 */
export function stdoutDestination(fd = 1, exitFlushMs = EXIT_FLUSH_MS): DestinationStream {
  let deadline = Number.POSITIVE_INFINITY;
  const stream = pino.destination({ dest: fd, sync: false, retryEAGAIN: () => Date.now() < deadline });
  const flushSync = stream.flushSync.bind(stream);
  stream.flushSync = () => {
    deadline = Date.now() + exitFlushMs;
    try {
      flushSync();
    } catch {
      // Nobody reads the lines any more: there is nowhere left to write them.
    } finally {
      deadline = Number.POSITIVE_INFINITY;
    }
  };
  return stream;
}
