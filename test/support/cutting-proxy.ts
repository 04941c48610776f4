/**
 * A TCP proxy between the gateway and an agent that can cut the connection of a streamed answer
 * deterministically: after exactly N server-sent events of the next answer to a given JSON-RPC method (the
 * bytes up to the end of the N-th event are passed, then both sockets are destroyed), or at once on
 * command. It can also hold the requests naming a method (the gateway's SubscribeToTask, say) until
 * released, so that a test lets the agent go on between the break and the recovery. It works on raw
 * bytes (HTTP/1.1, chunked or not): an SSE event ends with a blank line ("\n\n"), which chunk framing
 * ("\r\n") never makes.
 */
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

/** One request seen on a connection, and how many SSE events of its answer went through. */
export interface ProxiedExchange {
  /** The JSON-RPC method its body names (`"method":"…"`), once seen. */
  method?: string;
  events: number;
  /** The data of each of those events, as the agent wrote it (to read what an agent answered). */
  data: string[];
  /** The connection was cut by the proxy while this answer was open. */
  cut: boolean;
}

export interface CuttingProxy {
  url: string;
  /** Where connections go (`host:port`); set before the first one. */
  target: { host: string; port: number } | undefined;
  exchanges: ProxiedExchange[];
  /** Cut the next answer to `method` right after its `events`-th event (one cut; later answers pass). */
  cutAfterEvents(method: string, events: number): void;
  /** Cut every connection whose answer is still open now. */
  cutOpenAnswers(): void;
  /** Hold the bodies of requests naming `method` until `release()`. */
  hold(method: string): void;
  release(): void;
  /** The exchanges of one method, in the order their requests came. */
  of(method: string): ProxiedExchange[];
  close(): Promise<void>;
}

const METHOD = /"method"\s*:\s*"([^"]+)"/;
const HEADERS_END = '\r\n\r\n';
const EVENT_END = '\n\n';

export async function startCuttingProxy(): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  const open = new Set<{ exchange: ProxiedExchange; cut(): void }>();
  let armed: { method: string; events: number } | undefined;
  let held: string | undefined;
  const waiting: Array<() => void> = [];

  const proxy: CuttingProxy = {
    url: '',
    target: undefined,
    exchanges: [],
    cutAfterEvents: (method, events) => (armed = { method, events }),
    cutOpenAnswers: () => [...open].forEach((answer) => answer.cut()),
    hold: (method) => (held = method),
    release: () => {
      held = undefined;
      waiting.splice(0).forEach((resume) => resume());
    },
    of: (method) => proxy.exchanges.filter((exchange) => exchange.method === method),
    close: () =>
      new Promise<void>((resolve) => {
        proxy.release();
        server.close(() => resolve());
        sockets.forEach((socket) => socket.destroy());
      }),
  };

  function relay(client: Socket): void {
    const target = proxy.target;
    if (!target) return void client.destroy();
    const agent = createConnection(target);
    sockets.add(client).add(agent);
    let request = '';
    let exchange: ProxiedExchange | undefined;
    let answer = '';
    let bodyStart = -1;
    let cutAt: number | undefined;
    const cut = (): void => {
      if (exchange) exchange.cut = true;
      client.destroy();
      agent.destroy();
    };
    const entry = { exchange: undefined as unknown as ProxiedExchange, cut };
    const close = (): void => {
      open.delete(entry);
      sockets.delete(client);
      sockets.delete(agent);
      client.destroy();
      agent.destroy();
    };
    client.on('close', close).on('error', close);
    agent.on('close', close).on('error', close);

    client.on('data', (chunk: Buffer) => {
      // A request after an answer began is the next exchange on this kept-alive connection.
      if (!exchange || answer.length > 0) {
        exchange = { events: 0, data: [], cut: false };
        proxy.exchanges.push(exchange);
        entry.exchange = exchange;
        request = '';
        answer = '';
        bodyStart = -1;
        cutAt = undefined;
      }
      request += chunk.toString('latin1');
      const named = METHOD.exec(request)?.[1];
      if (named && exchange.method === undefined) {
        exchange.method = named;
        if (armed?.method === named) {
          cutAt = armed.events;
          armed = undefined;
        }
      }
      if (held !== undefined && named === held) {
        client.pause();
        waiting.push(() => {
          agent.write(chunk);
          client.resume();
        });
        return;
      }
      agent.write(chunk);
    });

    agent.on('data', (chunk: Buffer) => {
      const current = exchange;
      if (!current) return void client.write(chunk);
      open.add(entry);
      const text = chunk.toString('latin1');
      const from = answer.length;
      answer += text;
      if (bodyStart < 0) {
        const end = answer.indexOf(HEADERS_END);
        if (end >= 0) bodyStart = end + HEADERS_END.length;
      }
      // Count the events this chunk ends, and pass exactly up to the end of the one to cut after.
      let passUpTo = chunk.length;
      if (bodyStart >= 0) {
        let search = Math.max(from - 1, bodyStart);
        for (let at = answer.indexOf(EVENT_END, search); at >= 0; at = answer.indexOf(EVENT_END, search)) {
          current.events++;
          const start = answer.lastIndexOf(EVENT_END, at - 1);
          current.data.push(
            answer
              .slice(Math.max(start + EVENT_END.length, bodyStart), at)
              .replace(/^(\r\n)?[0-9a-fA-F]+\r\n/, '')
              .replace(/^data: ?/, ''),
          );
          search = at + EVENT_END.length;
          if (cutAt !== undefined && current.events === cutAt) {
            passUpTo = search - from;
            break;
          }
        }
      }
      if (cutAt !== undefined && current.events === cutAt) {
        client.write(chunk.subarray(0, passUpTo), cut);
        return;
      }
      client.write(chunk);
    });
  }

  const server = createServer(relay);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
