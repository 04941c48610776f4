import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { GatewayConfig } from '../../config/schema.js';
import type { DrainOptions } from '../../http-drain.js';
import { SERVED_SERVICE } from './definition.js';
import { createGrpcService, type GrpcSurfaceDeps } from './service.js';

export interface RunningGrpcSurface {
  /** The port actually bound (`grpc.port: 0` picks one). */
  port: number;
  /** The config with `grpc.port` set to the bound port, for everything that advertises it (the cards). */
  config: GatewayConfig;
  /** Stops taking calls, lets open ones finish for `drainMs`, then interrupts and cuts the rest. */
  drain(options: DrainOptions): Promise<void>;
}

const DEFAULT_GRACE_MS = 1_000;

const bindTarget = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Serves the gRPC binding on `grpc.host` (default: `host`) and `grpc.port`. */
export async function startGrpcSurface(deps: GrpcSurfaceDeps): Promise<RunningGrpcSurface> {
  const { config } = deps;
  const live: GrpcSurfaceDeps = { ...deps };
  const server = new Server({
    'grpc.max_receive_message_length': config['max-body-bytes'],
    // HTTP/2 pings while a stream is quiet, as SSE keep-alive comments do: idle-connection reapers leave it alone.
    ...(config['keepalive-ms'] > 0 ? { 'grpc.keepalive_time_ms': config['keepalive-ms'], 'grpc.keepalive_timeout_ms': 20_000 } : {}),
  });
  server.addService(SERVED_SERVICE, createGrpcService(live));
  const host = config.grpc.host ?? config.host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(bindTarget(host, config.grpc.port ?? 0), ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });

  live.config = { ...config, grpc: { ...config.grpc, port } };

  let drained: Promise<void> | undefined;
  return {
    port,
    config: live.config,
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
