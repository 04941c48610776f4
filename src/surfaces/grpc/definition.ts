import type { ServiceDefinition } from '@grpc/grpc-js';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { withFields, A2AError } from '../../model/index.js';
import { A2AService } from '../../protocol/grpc.js';

/** What a request that is not the method's protobuf message decodes to. */
const MALFORMED = Symbol('malformed request');
/** What a request with a string field that is not UTF-8 decodes to. */
const NOT_UTF8 = Symbol('string field not UTF-8');

/**
 * proto3 strings must be UTF-8; the SDK's reader replaces bad bytes with U+FFFD, so a turn would run on
 * text the caller never sent. A fatal decoder checks each string field as it is read, at no extra pass.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
class NotUtf8 extends Error {}
function decodeStrictUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new NotUtf8();
  }
}

/**
 * The service definition the gateway serves: the SDK's, with request decoding that cannot throw.
 * grpc-js answers a request it cannot decode with INTERNAL; here it reaches the handler and is
 * answered INVALID_ARGUMENT, like a JSON-RPC body that is not JSON (or not UTF-8: -32700).
 */
export const SERVED_SERVICE: ServiceDefinition = Object.fromEntries(
  Object.entries(A2AService).map(([name, method]) => [
    name,
    withFields(method, {
      requestDeserialize(bytes: Buffer): unknown {
        try {
          // The SDK's deserializer hands its argument to the message's `decode`, which reads through a
          // reader it is given (ts-proto); the SDK exports no other way to its decoders.
          return method.requestDeserialize(new BinaryReader(bytes, decodeStrictUtf8) as unknown as Buffer);
        } catch (error) {
          return error instanceof NotUtf8 ? NOT_UTF8 : MALFORMED;
        }
      },
    }),
  ]),
);

/** The decoded request, or the parse error to answer with. */
export function decodedRequest(request: unknown): unknown {
  if (request === MALFORMED) throw A2AError.parse('The request is not a valid protobuf message for this method');
  if (request === NOT_UTF8) throw A2AError.parse('The request has a string field that is not valid UTF-8 (proto3 strings must be)');
  return request;
}
