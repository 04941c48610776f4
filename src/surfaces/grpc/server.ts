import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { DrainOptions } from '../../http-drain.js';
import { SERVED_SERVICE } from './definition.js';
import { createGrpcService, type GrpcSurfaceDeps } from './service.js';

export interface RunningGrpcSurface {
  /** The port actually bound (`grpc.port: 0` picks one). */
  port: number;
  /** Stops taking calls, lets open ones finish for `drainMs`, then interrupts and cuts the rest. */
  drain(options: DrainOptions): Promise<void>;
}

const DEFAULT_GRACE_MS = 1_000;

const bindTarget = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Serves the gRPC binding on `options.host` and `options.listenPort`. */
export async function startGrpcSurface(deps: GrpcSurfaceDeps): Promise<RunningGrpcSurface> {
  const { options } = deps;
  const live: GrpcSurfaceDeps = { ...deps };
  const server = new Server({
    'grpc.max_receive_message_length': options.maxBodyBytes,
    // HTTP/2 pings while a stream is quiet, as SSE keep-alive comments do: idle-connection reapers leave it alone.
    ...(options.keepaliveMs > 0 ? { 'grpc.keepalive_time_ms': options.keepaliveMs, 'grpc.keepalive_timeout_ms': 20_000 } : {}),
  });
  server.addService(SERVED_SERVICE, createGrpcService(live));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(bindTarget(options.host, options.listenPort), ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });

  // The extended card advertises the port actually bound (`grpc.port: 0`).
  live.options = { ...options, card: { ...options.card, grpc: { ...options.card.grpc, port } } };

  let drained: Promise<void> | undefined;
  return {
    port,
    drain({ drainMs, interrupt, graceMs = DEFAULT_GRACE_MS }) {
      drained ??= new Promise<void>((resolve) => {
        let finished = false;
        const timers: NodeJS.Timeout[] = [];
        server.tryShutdown(() => {
          finished = true;
          for (const timer of timers) clearTimeout(timer);
          resolve();
        });
        timers.push(
          setTimeout(() => {
            if (finished) return;
            interrupt();
            timers.push(
              setTimeout(() => {
                if (finished) return;
                server.forceShutdown();
                resolve();
              }, graceMs),
            );
          }, drainMs),
        );
      });
      return drained;
    },
  };
}
