import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createDemoAgentApp, type DemoAgentOptions } from './app.js';
import { withFields } from '../model/index.js';

export { createDemoAgentApp, type DemoAgentOptions } from './app.js';
export { DemoRuntime, BUSY_CONTEXT_MESSAGE, CANCELED_MESSAGE, type DemoRuntimeOptions } from './runtime.js';
export { demoReply, planTurn, SLOW_PREFIX, FAIL_PREFIX, SLOW_EXTRA_CHUNKS, TEXT_ONLY_MESSAGE, type DemoReply } from './reply.js';
export { buildDemoCard, buildExtendedDemoCard, DEMO_AGENT_NAME, ARTIFACT_METADATA_EXTENSION } from './card.js';

export interface RunningDemoAgent {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41873`. */
  url: string;
  /** End open streams and turns, then stop the server. */
  close(): Promise<void>;
}

/** Serve the demo agent over HTTP (127.0.0.1 and a free port by default). */
export async function startDemoAgent(options: DemoAgentOptions & { host?: string; port?: number } = {}): Promise<RunningDemoAgent> {
  const { host = '127.0.0.1', port = 0, ...agentOptions } = options;
  // The card advertises the bound URL, known only once listening; requests wait for it.
  let handle: ((request: Request) => Response | Promise<Response>) | undefined;
  const server = createAdaptorServer({
    fetch: (request) => (handle ? handle(request) : new Response('Starting', { status: 503 })),
    hostname: host,
  }) as Server;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: boundPort } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  const { app, runtime } = createDemoAgentApp(withFields(agentOptions, { baseUrl: agentOptions.baseUrl ?? url }));
  handle = (request) => app.fetch(request);

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        runtime.close();
        server.close(() => resolve());
        server.closeIdleConnections();
        // Streams just ended; give their last bytes a moment before cutting what is left.
        setTimeout(() => server.closeAllConnections(), 50).unref();
      });
      return closing;
    },
  };
}
