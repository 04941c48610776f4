import type { ServiceDefinition } from '@grpc/grpc-js';
import { withFields, A2AError } from '../../model/index.js';
import { A2AService } from '../../protocol/grpc.js';

/** What a request that is not the method's protobuf message decodes to. */
const MALFORMED = Symbol('malformed request');

/**
 * The service definition the gateway serves: the SDK's, with request decoding that cannot throw.
 * grpc-js answers a request it cannot decode with INTERNAL; here it reaches the handler and is
 * answered INVALID_ARGUMENT, like a JSON-RPC body that is not JSON.
 */
export const SERVED_SERVICE: ServiceDefinition = Object.fromEntries(
  Object.entries(A2AService).map(([name, method]) => [
    name,
    withFields(method, {
      requestDeserialize(bytes: Buffer): unknown {
        try {
          return method.requestDeserialize(bytes);
        } catch {
          return MALFORMED;
        }
      },
    }),
  ]),
);

/** The decoded request, or the parse error to answer with. */
export function decodedRequest(request: unknown): unknown {
  if (request === MALFORMED) throw A2AError.parse('The request is not a valid protobuf message for this method');
  return request;
}
