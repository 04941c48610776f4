export const isStream = (res: Response): boolean => res.headers.get('content-type')?.startsWith('text/event-stream') === true;

/**
 * The response with its body relayed chunk by chunk as it comes (nothing is buffered ahead), calling
 * `done` once when the body ends, fails or is cancelled. A cancel (the client went away) is passed on
 * to the original body, so the upstream call is still aborted.
 */
export function onBodyEnd(res: Response, done: () => void): Response {
  if (!res.body) {
    done();
    return res;
  }
  const reader = res.body.getReader();
  const relayed = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            done();
            controller.close();
          } else controller.enqueue(next.value);
        } catch (error) {
          done();
          controller.error(error);
        }
      },
      async cancel(reason) {
        done();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(relayed, res);
}

