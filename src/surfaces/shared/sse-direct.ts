import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { SsePipe } from './sse-pipe.js';
import { sseChannelOfResponse } from './sse.js';

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

function outgoingOf(env: unknown): ServerResponse | undefined {
  const outgoing = (env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  return outgoing && typeof outgoing.writeHead === 'function' ? outgoing : undefined;
}

/**
 * The app's fetch for @hono/node-server with the gateway's SSE responses written straight to the
 * Node response. Everything else, and every SSE body already being read, goes the adapter's way.
 * In-process callers (`app.request`) never pass here and read the web stream.
 */
export function withDirectSse(fetch: Fetch): Fetch {
  return async (request, env) => {
    const response = await fetch(request, env);
    const channel = sseChannelOfResponse(response);
    const outgoing = outgoingOf(env);
    if (!channel || channel.claimed || !outgoing) return response;
    channel.claimed = true;
    new SsePipe(channel, outgoing).start(response.status, response.headers);
    // The adapter's own marker: a Response made here could take its cached fast path and write a second head.
    return RESPONSE_ALREADY_SENT;
  };
}
