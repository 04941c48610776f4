/**
 * A Redis failover under a gateway with `store: redis`: the primary turns replica and a replica turns
 * primary, and the address the gateway was given (here a TCP proxy; a DNS name or a virtual IP in a
 * managed Redis) leads to the new primary from then on. The gateway's open connections still reach the
 * old one, which refuses writes with READONLY. The gateway reconnects on that refusal, so the next turn
 * is recorded on the new primary, under its caller, instead of every write failing while reads work.
 * Two redis-servers of the test's own.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { userMessage } from '../../support/v1-message.js';
import { rpc } from '../../demo-agent/helpers.js';

/** A TCP proxy whose new connections go to `target`; connections already open stay where they went. */
async function switchableProxy(target: number): Promise<{ port: number; target: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = { port: 0, target, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  const server: Server = createServer((client) => {
    const upstream = connect(proxy.target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as AddressInfo).port;
  const close = proxy.close;
  proxy.close = async () => {
    for (const socket of sockets) socket.destroy();
    await close();
  };
  return proxy;
}

const portOf = (url: string): number => Number(new URL(url).port);

let primary: OwnRedis;
let standby: OwnRedis;
let proxy: Awaited<ReturnType<typeof switchableProxy>>;
let gateway: TestGateway;

beforeAll(async () => {
  primary = await ownRedis();
  standby = await ownRedis();
  proxy = await switchableProxy(portOf(primary.url));
  gateway = await startDemoGateway({ store: 'redis', 'redis-url': `redis://127.0.0.1:${proxy.port}`, 'redis-prefix': 'failover:' });
});
afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  await primary?.stop();
  await standby?.stop();
});

async function ownerIn(redis: OwnRedis, taskId: string): Promise<string | null> {
  const client = new Redis(redis.url);
  try {
    return await client.hget(`failover:t:${taskId}`, 'o');
  } finally {
    client.disconnect();
  }
}

describe('a Redis failover under store: redis', () => {
  it('the next turn is recorded on the new primary, and read back from it', async () => {
    const before = await rpc(gateway.url, 'SendMessage', { message: userMessage('make a vpc') });
    const first = (before.result as { task: { id: string } }).task;
    expect(await ownerIn(primary, first.id)).toBe('a2a-1.0:anonymous');

    // The failover: the standby is the primary now; the old primary follows it (and refuses writes).
    const old = new Redis(primary.url);
    try {
      // A replica refuses writes from this moment on, whether or not its first sync is done.
      await old.call('REPLICAOF', '127.0.0.1', String(portOf(standby.url)));
      await expect(old.set('probe', '1')).rejects.toThrow(/READONLY/);
    } finally {
      old.disconnect();
    }
    proxy.target = portOf(standby.url);

    const after = await rpc(gateway.url, 'SendMessage', { message: userMessage('and a vswitch') });
    expect(after.error).toBeUndefined();
    const second = (after.result as { task: { id: string } }).task;
    expect(await ownerIn(standby, second.id)).toBe('a2a-1.0:anonymous');
    const read = await rpc(gateway.url, 'GetTask', { id: second.id });
    expect(read.result).toMatchObject({ id: second.id });
    const listed = await rpc(gateway.url, 'ListTasks', {});
    expect((listed.result as { tasks: Array<{ id: string }> }).tasks.map((task) => task.id)).toContain(second.id);
  }, 60_000);
});
