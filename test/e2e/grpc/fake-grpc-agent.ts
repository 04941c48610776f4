/**
 * A hand-written gRPC-only A2A agent for fault injection: its card over HTTP lists one GRPC
 * interface, and each A2AService method does what the test sets in `behave`: answer, fail with a
 * status, hang, or stream some events and then hang. Every call is recorded with its metadata and
 * whether (and how) it ended.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Metadata, Server, ServerCredentials, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData } from '@grpc/grpc-js';
import { AgentCard, StreamResponse, Task } from 'a2a-sdk-1';
import { A2AService } from 'a2a-sdk-1/server/grpc';

export type Behaviour =
  | { kind: 'task' }
  | { kind: 'fail'; code: number; details: string; metadata?: Metadata }
  | { kind: 'hang' }
  | { kind: 'stream-then-hang'; events: number };

export interface RecordedCall {
  method: string;
  metadata: Record<string, string>;
  /** Settles when the call is over: 'cancelled' when the client went away first. */
  ended: Promise<'answered' | 'cancelled'>;
}

export interface FakeGrpcAgent {
  url: string;
  calls: RecordedCall[];
  behave: Behaviour;
  /** The gRPC `host:port` (bound on 127.0.0.1, or the `grpcHost` given). */
  grpcAddress: string;
  /** What the card's GRPC interface says; default the wildcard `0.0.0.0:<port>`, as agents bound to every interface advertise. */
  advertised: string;
  close(): Promise<void>;
}

const TASK_JSON = { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } };

export interface FakeGrpcAgentOptions {
  /** The address gRPC is bound on (default 127.0.0.1; Linux routes all of 127/8 to this machine). */
  grpcHost?: string;
  /** Its port (default any free one): another agent's, on another address, to tell which one a call reached. */
  grpcPort?: number;
}

export async function startFakeGrpcAgent(options: FakeGrpcAgentOptions = {}): Promise<FakeGrpcAgent> {
  const grpcHost = options.grpcHost ?? '127.0.0.1';
  const grpc = new Server();
  const calls: RecordedCall[] = [];
  const agent: FakeGrpcAgent = { url: '', calls, behave: { kind: 'task' }, grpcAddress: '', advertised: '', close: async () => undefined };

  function record(method: string, call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>): (how: 'answered') => void {
    let settle!: (how: 'answered' | 'cancelled') => void;
    const ended = new Promise<'answered' | 'cancelled'>((resolve) => (settle = resolve));
    call.once('cancelled', () => settle('cancelled'));
    const metadata = Object.fromEntries(
      Object.entries(call.metadata.getMap()).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    calls.push({ method, metadata, ended });
    return settle;
  }

  const unary = (method: string) => (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    const answered = record(method, call);
    const behaviour = agent.behave;
    if (behaviour.kind === 'hang' || behaviour.kind === 'stream-then-hang') return;
    answered('answered');
    if (behaviour.kind === 'fail') callback({ code: behaviour.code, details: behaviour.details, metadata: behaviour.metadata ?? new Metadata() });
    else callback(null, Task.fromJSON(TASK_JSON));
  };
  const streaming = (method: string) => (call: ServerWritableStream<unknown, unknown>) => {
    const answered = record(method, call);
    const behaviour = agent.behave;
    if (behaviour.kind === 'hang') return;
    if (behaviour.kind === 'fail') {
      answered('answered');
      call.emit('error', { code: behaviour.code, details: behaviour.details, metadata: behaviour.metadata ?? new Metadata() });
      return;
    }
    const events = behaviour.kind === 'stream-then-hang' ? behaviour.events : 1;
    for (let i = 0; i < events; i += 1) call.write(StreamResponse.fromJSON({ task: TASK_JSON }));
    if (behaviour.kind === 'task') {
      answered('answered');
      call.end();
    }
  };
  const service: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(A2AService)) service[name] = definition.responseStream ? streaming(name) : unary(name);
  grpc.addService(A2AService, service as never);
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync(`${grpcHost}:${options.grpcPort ?? 0}`, ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );

  agent.grpcAddress = `${grpcHost}:${grpcPort}`;
  agent.advertised = `0.0.0.0:${grpcPort}`;
  const http: HttpServer = createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return void res.writeHead(404).end();
    const card = AgentCard.toJSON(
      AgentCard.fromJSON({
        name: 'fake-grpc-agent',
        description: 'fault injection',
        version: '1.0.0',
        supportedInterfaces: [{ url: agent.advertised, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
        capabilities: { streaming: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
      }),
    );
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  agent.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  agent.close = async () => {
    grpc.forceShutdown();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return agent;
}
