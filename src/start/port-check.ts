import { createServer } from 'node:net';
import type { GatewayConfig } from '../config/schema.js';
import { isWildcardHost } from '../wildcard-host.js';

/** Why the gateway cannot listen on `host:port`, in words an operator acts on. */
export class PortUnavailableError extends Error {}

function reason(code: string | undefined, host: string, port: number, setting = '--port'): string {
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use (stop the other process or pick another ${setting})`;
  if (code === 'EACCES') return `not allowed to listen on port ${port} (ports below 1024 need privileges; pick another ${setting})`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${host}: no such local address (check --host)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot listen on ${host}: the host name does not resolve (check --host)`;
  return `cannot listen on ${host}:${port} (${code ?? 'error'})`;
}

/**
 * Binds and releases `host:port` once, so a taken port stops the start before anything else (the demo
 * agent, upstream detection, stores) has run. Port 0 always succeeds. A race with another process
 * binding in between is still caught when the gateway listens; this only makes the common case early.
 */
export async function assertPortFree(host: string, port: number, setting = '--port'): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(new PortUnavailableError(reason(error.code, host, port, setting))));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The same words for an error from the real listen of the port `setting` names. */
export function listenError(error: unknown, host: string, port: number, setting = '--port'): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ? new PortUnavailableError(reason(code, host, port, setting)) : (error as Error);
}

interface Listener {
  setting: 'port' | 'grpc.port' | 'metrics.port';
  host: string;
  port: number;
}

type PortSettings = Pick<GatewayConfig, 'host' | 'port' | 'grpc' | 'metrics'>;

/** What the gateway listens on: `port`, and `grpc.port` and `metrics.port` when set (without it the metrics are on `port`). */
function listenersOf(config: PortSettings): Listener[] {
  const listeners: Listener[] = [{ setting: 'port', host: config.host, port: config.port }];
  if (config.grpc.port !== undefined) listeners.push({ setting: 'grpc.port', host: config.grpc.host ?? config.host, port: config.grpc.port });
  if (config.metrics.enabled && config.metrics.port !== undefined)
    listeners.push({ setting: 'metrics.port', host: config.host, port: config.metrics.port });
  return listeners;
}

/** An IPv6 address as configured (`::1`, `[::1]`): `0.0.0.0` takes every IPv4 interface, none of these. */
const isIpv6 = (host: string): boolean => host.includes(':');

/**
 * Two hosts one port cannot serve twice: the same address, or one of them every interface of the other's
 * family (`::` and an empty host take IPv4 as well; `0.0.0.0` leaves `::1` free). A name (`localhost`) is not
 * resolved: a clash through it is told by the listen itself.
 */
function hostsOverlap(a: string, b: string): boolean {
  if (a === b) return true;
  const anyOf = (wildcard: string, other: string): boolean => isWildcardHost(wildcard) && (wildcard !== '0.0.0.0' || !isIpv6(other));
  return anyOf(a, b) || anyOf(b, a);
}

/**
 * Two listeners set to the same port: each alone is found free, then the one that listens second fails,
 * and its words would name that listener's setting, not the clash. So every pair is compared before
 * anything listens. Port 0 is a fresh port each time, never a clash.
 */
function assertPortsDistinct(listeners: readonly Listener[]): void {
  listeners.forEach((first, n) => {
    for (const second of listeners.slice(n + 1)) {
      if (first.port !== 0 && first.port === second.port && hostsOverlap(first.host, second.host)) {
        throw new PortUnavailableError(
          `${second.setting} ${second.port} is the same as ${first.setting}: two listeners cannot share a port; set ${second.setting} or ${first.setting} to another port`,
        );
      }
    }
  });
}

/** Throws when two of port, grpc.port and metrics.port clash: the configuration alone tells it (check-config too). */
export function assertPortSettingsDistinct(config: PortSettings): void {
  assertPortsDistinct(listenersOf(config));
}

/**
 * Stops the start, before anything listens, when two of port, grpc.port and metrics.port clash or one of
 * them is taken, in words naming the setting(s) to change.
 */
export async function assertPortsAvailable(config: PortSettings): Promise<void> {
  const listeners = listenersOf(config);
  assertPortsDistinct(listeners);
  // The main port is mostly given as the flag, so a taken one is told as --port.
  for (const { setting, host, port } of listeners) await assertPortFree(host, port, setting === 'port' ? '--port' : setting);
}
