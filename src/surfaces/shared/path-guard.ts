import type { Context, MiddlewareHandler } from 'hono';
import { A2AError, toRestError } from '../../model/index.js';
import type { GatewayEnv } from './env.js';
import { restStatus } from '../v1/rest-status.js';

/** The request target as the client sent it; @hono/node-server resolves dot segments before routing. */
function rawPath(c: Context<GatewayEnv>): string {
  const target = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  if (typeof target !== 'string') return new URL(c.req.url).pathname;
  // Absolute form (`GET http://host/path`): the path starts at the first `/` after the authority.
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  const path = origin ? target.slice(origin[0].length) : target;
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

function badPath(description: string): Response {
  const { status, body } = toRestError(A2AError.invalidParams(`Invalid path: ${description}`, [{ field: 'path', description }]));
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A path with a dot segment names no route: 404 as a google.rpc.Status, the form of the guard's 400s. */
const notFound = (): Response => restStatus(404, 'NOT_FOUND', 'Not Found: a path with a `.` or `..` segment names no route');

/**
 * Refuses request paths that would reach another route than the one they name: a `.` or `..`
 * segment, plain or percent-encoded (`/%2e%2e/tasks` would otherwise be `/tasks`), is a 404; NUL
 * or malformed percent-encoding in the path is a 400. Runs before every route.
 */
export function pathGuard(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const path = rawPath(c);
    // The common path has nothing to decode and no dots to look at.
    if (path.includes('%') || path.includes('.') || path.includes('\u0000')) {
      for (const segment of path.split('/')) {
        let decoded: string;
        try {
          decoded = decodeURIComponent(segment);
        } catch {
          return badPath('malformed percent-encoding');
        }
        if (decoded.includes('\u0000')) return badPath('NUL in the path');
        if (decoded === '.' || decoded === '..') return notFound();
      }
    }
    await next();
  };
}
