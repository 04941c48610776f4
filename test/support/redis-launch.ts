/**
 * redis-server (a data node or a sentinel) as a child of a test, on a port it cannot pick itself: redis-server takes no
 * port 0 that it then names. The one place that reads from its output whether it listens or found its port taken, so
 * that every helper starting one moves to another port (onFreePort) instead of waiting on a server that exited, or
 * on one of another file that took the port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PortTaken, onFreePort, type FreePortOptions } from './free-port.js';

/** Printed once every listener is bound: a data node is ready, a sentinel has its ID. */
const LISTENING = /Ready to accept connections|Sentinel ID is/;
/** bind(2)'s EADDRINUSE, as redis-server words it before it exits ("Failed listening on port …, aborting"). */
const PORT_IN_USE = /Address already in use/;

/**
 * Spawns redis-server with `args`, which make it listen on `port`, and resolves with the child once it listens. Rejects
 * with PortTaken when the port was in use, or with its output when it exited for another reason (it has exited
 * either way). Its output is read on and dropped afterwards, so that it never blocks on a full pipe.
 */
export function launchRedis(port: number, args: string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise<ChildProcess>((resolve, reject) => {
    const keep = (chunk: Buffer) => void (output += chunk.toString());
    const read = (chunk: Buffer) => {
      keep(chunk);
      if (!LISTENING.test(output)) return;
      child.stdout.off('data', read);
      child.stderr.off('data', keep);
      resolve(child);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', keep);
    child.once('error', (error) => reject(new Error(`this test runs redis-server itself: ${error.message}`)));
    child.once('exit', (code, signal) => {
      const said = output.trim().split('\n').slice(-3).join(' / ');
      if (PORT_IN_USE.test(output)) reject(new PortTaken(port, said));
      else reject(new Error(`redis-server on port ${port} exited (${signal ?? code}) before it listened: ${said}`));
    });
  }).finally(() => {
    // After it listens, its output still flows (a sentinel's failover is chatty): read and dropped.
    child.stdout.resume();
    child.stderr.resume();
  });
}

/** A redis-server that `args(port)` configures, on a free port: on another one when the first was taken. */
export function launchRedisOnFreePort(
  args: (port: number) => string[] | Promise<string[]>,
  options?: FreePortOptions,
): Promise<{ port: number; child: ChildProcess }> {
  return onFreePort(async (port) => ({ port, child: await launchRedis(port, await args(port)) }), options);
}
