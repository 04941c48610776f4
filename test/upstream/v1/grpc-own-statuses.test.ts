/**
 * fromGrpcError on the statuses grpc-js makes itself, made by grpc-js for real: an HTTP/2 peer (a hand-written fake,
 * for the faults) resets the stream, ends it without a status, sends a message past the size limit or one that does
 * not decode, or answers with HTTP alone. None is the agent's own error: none is told `reported`, so a turn's stream
 * broken so does not end the turn (the agent may run it on: core/read-on.ts endsTheTurn). A stream reset or ended
 * without a status broke mid-call: a connection lost (`connection`), as an HTTP agent's stream reset is, which the
 * facade follows again (surfaces/v025/recovery/turn-resubscribe.ts brokeOff), in the gateway's words. A status the peer sends
 * in its trailers is the agent's own, whatever its code: `reported`, and it ends the turn.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import { status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endsTheTurn } from '../../../src/core/read-on.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { brokeOff } from '../../../src/surfaces/v025/recovery/turn-resubscribe.js';
import { fromGrpcError } from '../../../src/upstream/v1/grpc-errors.js';
import { MAX_MESSAGE_BYTES, startGrpcPeer, type GrpcPeer, type PeerBehaviour } from './grpc-peer.js';

const GRPC_HEADERS = { ':status': 200, 'content-type': 'application/grpc' };

/** A gRPC message frame: not compressed, `length` as its declared length (its payload's by default). */
function frame(payload: Buffer, length = payload.length): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(length, 1);
  return Buffer.concat([prefix, payload]);
}

/** Sends `trailers` after the answer's headers (and no message). */
function trailed(stream: ServerHttp2Stream, trailers: Record<string, string>): void {
  stream.respond(GRPC_HEADERS, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  stream.end();
}

const PEER: Record<string, PeerBehaviour> = {
  'resets the stream': (stream) => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR),
  'resets it, calm': (stream) => stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM),
  'resets it, protocol error': (stream) => stream.close(http2.constants.NGHTTP2_PROTOCOL_ERROR),
  'ends it without a status': (stream) => {
    stream.respond(GRPC_HEADERS);
    stream.end();
  },
  'sends a message past the size limit': (stream) => {
    stream.respond(GRPC_HEADERS);
    stream.write(frame(Buffer.alloc(0), MAX_MESSAGE_BYTES + 1));
  },
  'sends a message that does not decode': (stream) => {
    stream.respond(GRPC_HEADERS);
    stream.write(frame(Buffer.from([0xff, 0xff, 0xff, 0xff])));
  },
  'answers HTTP 400': (stream) => {
    stream.respond({ ':status': 400, 'content-type': 'text/html' });
    stream.end('<h1>Bad Request</h1>');
  },
  'answers HTTP 404': (stream) => {
    stream.respond({ ':status': 404, 'content-type': 'text/html' });
    stream.end('<h1>Not Found</h1>');
  },
  'sends trailers without grpc-status': (stream) => trailed(stream, { 'x-proxy': 'edge-1' }),
  // The agent's own statuses: an a2a-js agent whose store failed mid-turn sends UNKNOWN with the store's words.
  'sends UNKNOWN in its trailers': (stream) =>
    trailed(stream, { 'grpc-status': String(status.UNKNOWN), 'grpc-message': encodeURI('connect ECONNREFUSED') }),
  'sends INTERNAL, trailers only': (stream) => {
    stream.respond(
      { ...GRPC_HEADERS, 'grpc-status': String(status.INTERNAL), 'grpc-message': encodeURI('the quota service failed') },
      { endStream: true },
    );
  },
  'sends RESOURCE_EXHAUSTED in its trailers': (stream) =>
    trailed(stream, { 'grpc-status': String(status.RESOURCE_EXHAUSTED), 'grpc-message': encodeURI('quota exceeded for cn-hangzhou') }),
};

let peer: GrpcPeer;
beforeAll(async () => {
  peer = await startGrpcPeer(PEER);
});
afterAll(async () => {
  await peer?.close();
});

/** The error grpc-js ends a SendStreamingMessage with when the peer does `behaviour`. */
const streamFailure = (behaviour: keyof typeof PEER): Promise<ServiceError> => peer.streamFailure(behaviour);

const open = new AbortController().signal;

describe('fromGrpcError on a status grpc-js made as the stream broke mid-call: a connection lost', () => {
  it.for([
    ['resets the stream', status.INTERNAL, 'Received RST_STREAM with code 2 (Internal server error)'],
    ['resets it, protocol error', status.INTERNAL, 'Received RST_STREAM with code 1'],
    ['resets it, calm', status.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded'],
    ['ends it without a status', status.INTERNAL, 'Received RST_STREAM with code 0 (Call ended without gRPC status)'],
  ] as const)('the peer %s: %i "%s", told in the gateway\'s words; followed again, the turn not ended', async ([peer, code, details]) => {
    const failure = await streamFailure(peer);
    expect([failure.code, failure.details]).toEqual([code, details]);
    const error = fromGrpcError(failure, []);
    expect(error).toMatchObject({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable, upstreamFault: 'connection' });
    // Not the 503 of an agent never reached: the agent may have begun the turn.
    expect(error.hopFailure).toBeUndefined();
    expect((error.cause as ServiceError).details).toBe(details);
    expect([brokeOff(error), endsTheTurn(error, open)]).toEqual([true, false]);
  });
});

describe("fromGrpcError on any other status grpc-js made: not the agent's own, nor a connection lost", () => {
  it.for([
    ['sends a message past the size limit', status.RESOURCE_EXHAUSTED, 'Received message larger than max'],
    ['sends a message that does not decode', status.INTERNAL, 'Response message parsing error'],
    ['answers HTTP 400', status.INTERNAL, 'Received HTTP status code 400'],
    ['answers HTTP 404', status.UNIMPLEMENTED, 'Received HTTP status code 404'],
    ['sends trailers without grpc-status', status.UNKNOWN, 'Received HTTP status code 200'],
  ] as const)('the peer %s: %i "%s…", unmarked', async ([peer, code, details]) => {
    const failure = await streamFailure(peer);
    expect([failure.code, failure.details.slice(0, details.length)]).toEqual([code, details]);
    const error = fromGrpcError(failure, []);
    expect(error.upstreamFault).toBeUndefined();
    expect(brokeOff(error)).toBe(false);
  });
});

describe("fromGrpcError on a status the agent's server sent: its own error", () => {
  it.for([
    ['sends UNKNOWN in its trailers', -32603, 'connect ECONNREFUSED'],
    ['sends INTERNAL, trailers only', -32603, 'the quota service failed'],
    ['sends RESOURCE_EXHAUSTED in its trailers', -32603, 'quota exceeded for cn-hangzhou'],
  ] as const)('the peer %s: %i "%s", reported; it ends the turn', async ([peer, code, message]) => {
    const error = fromGrpcError(await streamFailure(peer), []);
    expect(error).toMatchObject({ code, message, upstreamFault: 'reported' });
    expect(endsTheTurn(error, open)).toBe(true);
  });
});
