/**
 * port, grpc.port and metrics.port set to the same port: each alone is free, so only the listener that
 * came second failed, under its own setting's name. Every pair is now refused at start, naming both.
 */
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { assertPortsAvailable } from '../../src/start/port-check.js';
import { freePort } from '../support/free-port.js';

describe('two listeners on one port', () => {
  it('each pair is refused with one line naming both settings', async () => {
    const port = await freePort();
    const other = await freePort();
    await expect(assertPortsAvailable(defaultConfig({ port, grpc: { port } }))).rejects.toThrow(
      `grpc.port ${port} is the same as port: two listeners cannot share a port; set grpc.port or port to another port`,
    );
    await expect(assertPortsAvailable(defaultConfig({ port, metrics: { port } }))).rejects.toThrow(`metrics.port ${port} is the same as port`);
    await expect(assertPortsAvailable(defaultConfig({ port, grpc: { port: other }, metrics: { port: other } }))).rejects.toThrow(
      `metrics.port ${other} is the same as grpc.port`,
    );
  });

  it('port 0 is a fresh port each time; other hosts, or metrics that are off, are no clash', async () => {
    await expect(assertPortsAvailable(defaultConfig({ port: 0, grpc: { port: 0 }, metrics: { port: 0 } }))).resolves.toBeUndefined();
    const port = await freePort();
    const grpcElsewhere = defaultConfig({ host: '127.0.0.1', port, grpc: { host: '127.0.0.2', port } });
    await expect(assertPortsAvailable(grpcElsewhere)).resolves.toBeUndefined();
    await expect(assertPortsAvailable(defaultConfig({ port, metrics: { enabled: false, port } }))).resolves.toBeUndefined();
    // Every interface takes the port on 127.0.0.1 as well.
    const grpcEverywhere = defaultConfig({ host: '127.0.0.1', port, grpc: { host: '0.0.0.0', port } });
    await expect(assertPortsAvailable(grpcEverywhere)).rejects.toThrow(`grpc.port ${port} is the same as port`);
    // IPv4's every interface leaves an IPv6 address free; IPv6's takes IPv4 as well.
    const v4AndV6 = defaultConfig({ host: '0.0.0.0', port, grpc: { host: '::1', port } });
    await expect(assertPortsAvailable(v4AndV6)).resolves.toBeUndefined();
    const v6Everywhere = defaultConfig({ host: '127.0.0.1', port, grpc: { host: '::', port } });
    await expect(assertPortsAvailable(v6Everywhere)).rejects.toThrow(`grpc.port ${port} is the same as port`);
  });

  it.each([
    ['grpc.port equal to port', (port: number) => ({ port, grpc: { port } }), 'grpc.port', 'port'],
    ['grpc.port equal to metrics.port', (port: number) => ({ port: 0, grpc: { port }, metrics: { port } }), 'metrics.port', 'grpc.port'],
  ])('%s: the start stops naming both, not the one that would have listened second', async (_name, settings, second, first) => {
    const port = await freePort();
    const started = startGateway(defaultConfig(settings(port)), createLogger('silent'));
    await expect(started).rejects.toThrow(`${second} ${port} is the same as ${first}:`);
    await expect(started).rejects.not.toThrow('already in use');
  });
});
