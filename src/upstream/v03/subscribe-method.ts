import { A2AError, ErrorCode, type StreamResponse } from '../../model/index.js';

type SubscribeMethod = 'GET' | 'POST';

/**
 * A 404 or 405 answered to a subscription of a task just read as running: the route is not served on that method
 * (rest-errors.ts reads a bare 404 as TaskNotFound, a 405 as UnsupportedOperation).
 */
const routeRefused = (error: unknown): boolean =>
  error instanceof A2AError && (error.code === ErrorCode.TaskNotFound || error.code === ErrorCode.UnsupportedOperation);

/**
 * How a 0.3 HTTP+JSON agent takes `tasks/{id}:subscribe`. The 0.3 specification writes it POST and its proto
 * GET, and servers took one each: a2a-js 0.3.7–0.3.12 serve POST only, a2a-python 0.3 GET only (a2a-js 0.3.14
 * both). So a subscription is asked with GET, then, refused before any event, with POST; the method that was
 * taken is asked first from then on.
 */
export function createSubscribeMethods(): (open: (method: SubscribeMethod) => AsyncIterable<StreamResponse>) => AsyncGenerator<StreamResponse> {
  let methods: SubscribeMethod[] = ['GET', 'POST'];
  return async function* subscribed(open) {
    for (const [index, method] of methods.entries()) {
      let started = false;
      try {
        for await (const event of open(method)) {
          if (!started && index > 0) methods = [method, ...methods.filter((other) => other !== method)];
          started = true;
          yield event;
        }
        return;
      } catch (error) {
        if (started || index === methods.length - 1 || !routeRefused(error)) throw error;
      }
    }
  };
}
