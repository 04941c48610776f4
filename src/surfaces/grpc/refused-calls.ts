import { ServerInterceptingCall, status, type ServerInterceptingCallInterface, type ServerInterceptor } from '@grpc/grpc-js';
import { A2AService, GRPC_METHODS, type GrpcMethodName } from '../../protocol/grpc.js';
import { tooLarge } from '../shared/body-refusal.js';
import { writeCallLine, type CallLineSinks } from './call-line.js';
import { toGrpcStatus } from './status.js';

type CallStatus = Parameters<ServerInterceptingCallInterface['sendStatus']>[0];

/** The A2A operation of each method path (`/lf.a2a.v1.A2AService/SendMessage`), as the call lines name methods. */
const OPERATION_OF_PATH: ReadonlyMap<string, string> = new Map(
  (Object.entries(GRPC_METHODS) as Array<[GrpcMethodName, (typeof GRPC_METHODS)[GrpcMethodName]]>).map(([name, method]) => [
    A2AService[name].path,
    method.operation,
  ]),
);

/**
 * grpc-js answers some calls itself before the gateway's handler has the request: a message past the server's
 * receive limit (`max-body-bytes`: the size is read first, so nothing past it is buffered) or one that
 * decompresses past it, both RESOURCE_EXHAUSTED; a deadline that passed while the request was arriving. The
 * handler never runs for them, so without this no call line was written and operators saw nothing.
 *
 * This interceptor sees every status the call ends with, grpc-js's own included: as the server's only interceptor
 * (its credentials add none) it is handed grpc-js's innermost call, and wraps that call's `sendStatus`, through which
 * grpc-js sends its own (server-interceptors.ts of grpc-js 1.14; test/e2e/grpc/message-sizes.test.ts fails should
 * that change). The first status sent before the request reached the handler gets the call's line here, as
 * service.ts writes it for every other call (no `client`: credentials were not checked yet). A message past the
 * limit is answered as the HTTP bindings answer such a body, -32600 "Request payload too large" (INVALID_ARGUMENT):
 * A2A asks the bindings to map an error alike, and RESOURCE_EXHAUSTED, gRPC's own code for it, would tell a client
 * to retry later what can never pass.
 */
export function refusedCallLines(sinks: CallLineSinks): ServerInterceptor {
  return (descriptor, call) => {
    const started = Date.now();
    let received = false;
    let handlerHasRequest = false;
    let statusSent = false;
    const send = call.sendStatus.bind(call);
    call.sendStatus = (sent: CallStatus) => {
      // grpc-js ignores any status after the first: so does the line.
      const refusal = !handlerHasRequest && !statusSent;
      statusSent = true;
      send(refusal ? refused(sinks, descriptor.path, sent, Date.now() - started) : sent);
    };
    return new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMessage: (message, pass) => {
            received = true;
            pass(message);
          },
          // grpc-js hands a unary or server-streaming handler its request at the half-close.
          onReceiveHalfClose: (pass) => {
            handlerHasRequest = received;
            pass();
          },
        }),
    });
  };
}

/** The status answered for a call ended before its handler ran, after writing its line. */
function refused(sinks: CallLineSinks, path: string, sent: CallStatus, durationMs: number): CallStatus {
  const method = OPERATION_OF_PATH.get(path) ?? path;
  if (sent.code === status.DEADLINE_EXCEEDED) {
    writeCallLine(sinks, { method, grpcStatus: sent.code, durationMs }, 'caller_left');
    return sent;
  }
  if (sent.code !== status.RESOURCE_EXHAUSTED) {
    writeCallLine(sinks, { method, grpcStatus: sent.code, durationMs });
    return sent;
  }
  const error = tooLarge();
  const answer = toGrpcStatus(error);
  writeCallLine(sinks, { method, grpcStatus: answer.code, durationMs }, { errorCode: error.code });
  return answer;
}
