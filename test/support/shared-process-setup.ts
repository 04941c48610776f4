/**
 * Runs before every file of the `shared` project (several files in one process). @hono/node-server's
 * `RESPONSE_ALREADY_SENT` marker is made when its module is first evaluated, and a node module is
 * evaluated once per process: made after some earlier file's `serve()` swapped in the adapter's own
 * `Response`, the marker takes the adapter's cached path, which writes a second head on every
 * directly written SSE stream. The gateway imports it before it serves, so evaluate it first here too.
 */
import '@hono/node-server/utils/response';
