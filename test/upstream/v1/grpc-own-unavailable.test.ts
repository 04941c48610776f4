/**
 * fromGrpcError on the UNAVAILABLE, PERMISSION_DENIED and UNAUTHENTICATED grpc-js makes itself, made by grpc-js for
 * real against a misbehaving HTTP/2 peer (grpc-peer.ts). An agent never reached (a refused connection, a TLS handshake
 * that failed, a stream the peer refused unprocessed) is the hop's unavailable (HTTP+JSON 503, gRPC UNAVAILABLE), which
 * invites a retry. A connection closed or reset under the call, with or without the peer's GOAWAY, is a connection
 * lost (no 503: the agent may have begun the turn, and a retry would run it twice), and the caller's message counts as
 * sent. The PERMISSION_DENIED grpc-js makes of an INADEQUATE_SECURITY reset is a failure of the connection's TLS, not
 * the agent refusing the gateway's credentials; its UNAUTHENTICATED / PERMISSION_DENIED of an HTTP 401 / 403 are that.
 * grpc-js's words go with each as its cause, for the operator's log.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import { Client, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../../src/config/schema.js';
import { endsTheTurn } from '../../../src/core/read-on.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { brokeOff, refusedTheGateway } from '../../../src/surfaces/v025/recovery/turn-resubscribe.js';
import { createGrpcUpstream } from '../../../src/upstream/v1/grpc-client.js';
import { fromGrpcError } from '../../../src/upstream/v1/grpc-errors.js';
import { CLOSED_PORT } from '../../support/free-port.js';
import { startGrpcPeer, type GrpcPeer, type PeerBehaviour } from './grpc-peer.js';

/** Runs `then` once the call's request came whole (grpc-js half-closes after a call's one message). */
const afterTheRequest = (stream: ServerHttp2Stream, then: (session: http2.Http2Session) => void): void => {
  const session = stream.session!;
  stream.on('end', () => then(session)).resume();
};

const answersHttp = (stream: ServerHttp2Stream, httpStatus: number): void => {
  stream.respond({ ':status': httpStatus, 'content-type': 'text/html' });
  stream.end(`<h1>${httpStatus}</h1>`);
};

const PEER: Record<string, PeerBehaviour> = {
  'closes the connection under the call': (stream, cut) => afterTheRequest(stream, () => cut('closed')),
  'resets the connection under the call': (stream, cut) => afterTheRequest(stream, () => cut('reset')),
  'sends GOAWAY, then closes the connection under the call': (stream, cut) =>
    afterTheRequest(stream, (session) => {
      session.goaway(http2.constants.NGHTTP2_NO_ERROR);
      setTimeout(() => cut('closed'), 20);
    }),
  'refuses the stream': (stream) => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM),
  'resets it, inadequate security': (stream) => stream.close(http2.constants.NGHTTP2_INADEQUATE_SECURITY),
  'answers HTTP 401': (stream) => answersHttp(stream, 401),
  'answers HTTP 403': (stream) => answersHttp(stream, 403),
  'answers HTTP 503': (stream) => answersHttp(stream, 503),
};

let peer: GrpcPeer;
beforeAll(async () => {
  peer = await startGrpcPeer(PEER);
});
afterAll(async () => {
  await peer?.close();
});

const open = new AbortController().signal;

describe("an UNAVAILABLE grpc-js made as the connection went under the call: a connection lost, not the hop's 503", () => {
  it.for([
    ['closes the connection under the call', 'Connection dropped'],
    ['resets the connection under the call', 'read ECONNRESET'],
    ['sends GOAWAY, then closes the connection under the call', 'Connection dropped'],
  ] as const)('the peer %s: UNAVAILABLE "%s", unary and streamed; the agent may have begun the turn', async ([behaviour, details]) => {
    for (const failure of [await peer.unaryFailure(behaviour), await peer.streamFailure(behaviour)]) {
      expect([failure.code, failure.details]).toEqual([status.UNAVAILABLE, details]);
      const error = fromGrpcError(failure, []);
      expect(error).toMatchObject({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable, upstreamFault: 'connection' });
      // Neither HTTP+JSON 503 nor gRPC UNAVAILABLE to the caller: both invite a retry, which would run the turn twice.
      expect([error.hopFailure, error.statusInfo.httpStatus, error.statusInfo.grpcStatus]).toEqual([undefined, 500, 'INTERNAL']);
      expect((error.cause as ServiceError).details).toBe(details);
      expect([brokeOff(error), endsTheTurn(error, open)]).toEqual([true, false]);
    }
  });

  it("a proxy's HTTP 503 page (grpc-js: UNAVAILABLE) is no proof that nothing was sent either", async () => {
    const failure = await peer.unaryFailure('answers HTTP 503');
    expect([failure.code, failure.details]).toEqual([status.UNAVAILABLE, 'Received HTTP status code 503']);
    expect(fromGrpcError(failure, [])).toMatchObject({ hopFailure: undefined, upstreamFault: 'connection' });
  });
});

describe("an UNAVAILABLE grpc-js made before the call left: the agent never reached, the hop's 503", () => {
  /** A unary SendMessage on a channel of its own to `target`. */
  async function callTo(target: string, tls: boolean): Promise<ServiceError> {
    const own = new Client(target, tls ? credentials.createSsl() : credentials.createInsecure());
    try {
      return await peer.unaryFailure('answers HTTP 503', own);
    } finally {
      own.close();
    }
  }

  it.for([
    ['a refused connection', () => callTo(`127.0.0.1:${CLOSED_PORT}`, false), /^No connection established\. Last error: .*ECONNREFUSED/],
    ['a TLS handshake that failed', () => callTo(`localhost:${peer.port}`, true), /^No connection established\. Last error: .*wrong version number/],
    ['a stream the peer refused, unprocessed', () => peer.unaryFailure('refuses the stream'), /^Stream refused by server$/],
  ] as const)("%s: told as the hop's unavailable (HTTP+JSON 503, gRPC UNAVAILABLE), grpc-js's words as the cause", async ([, call, details]) => {
    const failure = await call();
    expect([failure.code, failure.details]).toEqual([status.UNAVAILABLE, expect.stringMatching(details)]);
    const error = fromGrpcError(failure, []);
    expect(error).toMatchObject({ message: GATEWAY_FAILURES.upstreamUnavailable, hopFailure: 'unavailable', upstreamFault: 'connection' });
    expect([error.statusInfo.httpStatus, error.statusInfo.grpcStatus]).toEqual([503, 'UNAVAILABLE']);
    expect((error.cause as ServiceError).details).toMatch(details);
  });
});

describe("grpc-js's own PERMISSION_DENIED and UNAUTHENTICATED", () => {
  it('an INADEQUATE_SECURITY reset ("Protocol not secure enough") is the connection\'s TLS, not refused credentials', async () => {
    const failure = await peer.unaryFailure('resets it, inadequate security');
    expect([failure.code, failure.details]).toEqual([status.PERMISSION_DENIED, 'Protocol not secure enough']);
    const error = fromGrpcError(failure, []);
    expect(error).toMatchObject({ message: GATEWAY_FAILURES.upstreamUnavailable, upstreamFault: 'connection', hopFailure: undefined });
    expect(refusedTheGateway(error)).toBe(false);
    expect((error.cause as Error).message).toBe(
      "The upstream agent's side refused the connection's TLS for HTTP/2 (INADEQUATE_SECURITY: a TLS version or cipher " +
        "HTTP/2 forbids; upstream.tls, or the agent's TLS): Protocol not secure enough",
    );
  });

  it.for([
    ['answers HTTP 401', status.UNAUTHENTICATED, 401],
    ['answers HTTP 403', status.PERMISSION_DENIED, 403],
  ] as const)('the peer %s without a gRPC status: refused credentials, as the HTTP clients read it', async ([behaviour, code, httpStatus]) => {
    const failure = await peer.unaryFailure(behaviour);
    expect([failure.code, failure.details]).toEqual([code, `Received HTTP status code ${httpStatus}`]);
    const error = fromGrpcError(failure, []);
    expect(error).toMatchObject({ upstreamFault: 'credentials', agentHttpStatus: httpStatus });
    expect(refusedTheGateway(error)).toBe(true);
  });
});

describe("the gRPC client's CallContext.onMessageSent on grpc-js's UNAVAILABLE", () => {
  /** A gRPC upstream to `address`, handed its card (no card fetch). */
  const upstreamTo = (address: string) =>
    createGrpcUpstream({
      baseUrl: 'http://127.0.0.1:1',
      config: UpstreamConfig.parse({}),
      card: {
        name: 'peer',
        description: 'A misbehaving HTTP/2 peer.',
        version: '1.0.0',
        supportedInterfaces: [{ url: address, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
        capabilities: { streaming: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      },
    });

  it('a message whose connection closed under the call counts as sent; one to an agent never reached does not', async () => {
    const told: string[] = [];
    for (const [behaviour, address] of [
      ['closes the connection under the call', `127.0.0.1:${peer.port}`],
      ['never reached', `127.0.0.1:${CLOSED_PORT}`],
    ] as const) {
      const upstream = upstreamTo(address);
      const request = { message: { messageId: behaviour, role: 'ROLE_USER' as const, parts: [{ text: 'deploy a VPC' }] } };
      // The peer's behaviour rides in the trace headers, the metadata a call carries as given.
      const ctx = { principal: '', signal: open, onMessageSent: () => told.push(behaviour), traceHeaders: { 'x-peer': behaviour } };
      await expect(upstream.sendMessage(request, ctx)).rejects.toThrow(GATEWAY_FAILURES.upstreamUnavailable);
      await upstream.close();
    }
    expect(told).toEqual(['closes the connection under the call']);
  });
});
