import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainable } from '../../src/http/drain.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: Server[] = [];
const agents: Agent[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections();
  for (const agent of agents.splice(0)) agent.destroy();
});

async function serve(handler: Handler): Promise<{ server: Server; port: number; drain: ReturnType<typeof drainable> }> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, drain: drainable(server) };
}

function keepAliveAgent(): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return agent;
}

/** GET `path`; the body and the response's Connection header. */
function get(port: number, path: string, agent: Agent): Promise<{ body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ body, connection: res.headers.connection }));
    })
      .on('error', reject)
      .end();
  });
}

const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

/** Everything the server sends on `socket` until it closes (a reset counts as a close). */
function readAll(socket: Socket): Promise<string> {
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

/** A raw connection, to write requests at exactly the moment a test needs them. */
async function rawConnection(port: number): Promise<{ socket: Socket; text: Promise<string>; answered(body: string): Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  const text = readAll(socket);
  await new Promise((resolve) => socket.once('connect', resolve));
  let seen = '';
  const answered = (body: string) =>
    new Promise<void>((resolve) => {
      const check = (chunk: string) => {
        seen += chunk;
        if (!seen.endsWith(body)) return;
        socket.off('data', check);
        resolve();
      };
      socket.on('data', check);
    });
  return { socket, text: text.then((all) => all.slice(all.lastIndexOf('HTTP/1.1'))), answered };
}

const timed = async (work: Promise<unknown>): Promise<number> => {
  const started = Date.now();
  await work;
  return Date.now() - started;
};

describe('drainable', () => {
  it('closes idle keep-alive and never-used connections at once: nothing open means no wait', async () => {
    const { port, drain } = await serve((_req, res) => res.end('ok'));
    const agent = keepAliveAgent();
    expect((await get(port, '/', agent)).connection).toBe('keep-alive');
    const unused = connect(port, '127.0.0.1');
    await new Promise((resolve) => unused.once('connect', resolve));
    const unusedClosed = new Promise((resolve) => unused.once('close', resolve));
    let interrupted = false;
    const ms = await timed(
      drain.drain({
        drainMs: 5_000,
        interrupt: () => {
          interrupted = true;
        },
      }),
    );
    // Not the 5 s drainMs: half of it, which a busy host does not reach.
    expect(ms).toBeLessThan(2_500);
    expect(interrupted).toBe(false);
    await unusedClosed;
    expect(await refused(port)).toBe(true);
  });

  it('lets a request in flight finish, answered with Connection: close, and serves one that arrives on a kept connection', async () => {
    const pending: ServerResponse[] = [];
    let onArrival!: () => void;
    const arrived = new Promise<void>((resolve) => (onArrival = resolve));
    const { port, drain } = await serve((req, res) => {
      if (req.url !== '/slow') return void res.end('fast');
      pending.push(res);
      onArrival();
    });
    const agent = keepAliveAgent();
    await get(port, '/warm', agent);
    const other = keepAliveAgent();
    await get(port, '/warm', other);
    const slow = get(port, '/slow', agent);
    await arrived;

    const drained = drain.drain({ drainMs: 5_000, interrupt: () => undefined });
    // The kept-alive connection of `other` was idle when the drain began: it is closed, so a request
    // sent after that travels on a new connection, which is refused.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(get(port, '/late', other)).rejects.toThrow();
    setTimeout(() => pending[0]!.end('slow done'), 100);
    expect(await slow).toEqual({ body: 'slow done', connection: 'close' });
    expect(await timed(drained)).toBeLessThan(2_500);
  });

  // The request was on its way when the signal came: its bytes, or its connection, still queued in the
  // kernel. Closing at once reset a request its client had already sent (seen in CI under load).
  it('serves a request already sent when the drain begins, on a kept-alive connection and on a new one', async () => {
    const { port, drain } = await serve((req, res) => res.end(`answer to ${req.url}`));
    const kept = await rawConnection(port);
    kept.socket.write('GET /warm HTTP/1.1\r\nHost: x\r\n\r\n');
    await kept.answered('answer to /warm');
    const fresh = connect(port, '127.0.0.1');
    const freshText = readAll(fresh);
    await new Promise((resolve) => fresh.once('connect', resolve));

    // Both written, and the drain begun, before the server's next read.
    kept.socket.write('GET /queued-on-kept HTTP/1.1\r\nHost: x\r\n\r\n');
    fresh.write('GET /queued-on-new HTTP/1.1\r\nHost: x\r\n\r\n');
    const drained = drain.drain({ drainMs: 5_000, interrupt: () => undefined });

    // Answered, then closed (`text` settles at the close).
    expect(await kept.text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*answer to \/queued-on-kept$/);
    expect(await freshText).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*answer to \/queued-on-new$/);
    expect(await timed(drained)).toBeLessThan(2_500);
  });

  it('serves a request already sent when the drain begins while another response ends at that moment', async () => {
    const parked: ServerResponse[] = [];
    const { port, drain } = await serve((req, res) => {
      if (req.url === '/slow') parked.push(res);
      else res.end(`answer to ${req.url}`);
    });
    const slow = await rawConnection(port);
    slow.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(() => parked.length).toBe(1);
    const fresh = connect(port, '127.0.0.1');
    const freshText = readAll(fresh);
    await new Promise((resolve) => fresh.once('connect', resolve));

    fresh.write('GET /queued HTTP/1.1\r\nHost: x\r\n\r\n');
    const drained = drain.drain({ drainMs: 5_000, interrupt: () => undefined });
    // Its close closes idle connections again: not before the drain has read what was sent.
    parked[0]!.end('slow done');

    expect(await freshText).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*answer to \/queued$/);
    expect(await slow.text).toMatch(/slow done$/);
    expect(await timed(drained)).toBeLessThan(2_500);
  });

  it('interrupts what is still open when drainMs runs out, then cuts it after the grace', async () => {
    const pending: ServerResponse[] = [];
    let onArrival!: () => void;
    const arrived = new Promise<void>((resolve) => (onArrival = resolve));
    const { port, drain } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive' });
      res.write('data: first\n\n');
      pending.push(res);
      onArrival();
    });
    const received: string[] = [];
    const stream = new Promise<void>((resolve) => {
      request({ host: '127.0.0.1', port, path: '/stream' }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => received.push(chunk));
        res.on('end', resolve);
        res.on('error', () => resolve());
        res.on('close', resolve);
      }).end();
    });
    await arrived;

    let interruptedAt = 0;
    const started = Date.now();
    await drain.drain({
      drainMs: 200,
      // Long, so that an end within it is told from one at its end however busy the host.
      graceMs: 5_000,
      interrupt: () => {
        interruptedAt = Date.now();
        pending[0]!.end('event: error\ndata: bye\n\n');
      },
    });
    await stream;
    expect(interruptedAt - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - interruptedAt).toBeLessThan(2_500);
    expect(received.join('')).toBe('data: first\n\nevent: error\ndata: bye\n\n');
  });

  it('cuts a connection the interrupt did not end, once the grace is over', async () => {
    let onArrival!: () => void;
    const arrived = new Promise<void>((resolve) => (onArrival = resolve));
    const { port, drain } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      onArrival();
    });
    const closed = new Promise<void>((resolve) => {
      request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.resume();
        res.on('close', resolve);
      }).end();
    });
    await arrived;
    const ms = await timed(drain.drain({ drainMs: 100, graceMs: 200, interrupt: () => undefined }));
    await closed;
    expect(ms).toBeGreaterThanOrEqual(290);
    // Cut, not left open: what is left open is never cut.
    expect(ms).toBeLessThan(5_000);
  });
});
