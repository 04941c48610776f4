/**
 * The calls grpc-js answers itself before the gateway's handler has their request: each gets its `grpc call` line,
 * and a message past max-body-bytes is answered as the HTTP bindings answer such a body. (The end-to-end refusal of
 * an oversized request through a real server: test/e2e/grpc/message-sizes.test.ts.)
 */
import { Metadata, status, type ServerInterceptingCallInterface } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { A2AService } from '../../../src/protocol/grpc.js';
import { refusedCallLines } from '../../../src/surfaces/grpc/refused-calls.js';
import { capturedLog } from '../../support/captured-log.js';

type Listener = Parameters<ServerInterceptingCallInterface['start']>[0];
type SentStatus = Parameters<ServerInterceptingCallInterface['sendStatus']>[0];

/** grpc-js's innermost call as far as the interceptor sees it: the listener it is given and the statuses sent. */
function innermostCall() {
  const sent: SentStatus[] = [];
  let listener: Listener | undefined;
  const call = {
    start: (given: Listener) => void (listener = given),
    sendStatus: (status: SentStatus) => void sent.push(status),
  } as unknown as ServerInterceptingCallInterface;
  return { call, sent, listener: () => listener! };
}

const handlerListener: Listener = { onReceiveMetadata() {}, onReceiveMessage() {}, onReceiveHalfClose() {}, onCancel() {} };

function intercepted(path: string = A2AService.sendMessage.path) {
  const log = capturedLog();
  const inner = innermostCall();
  const call = refusedCallLines({ logger: log.logger })({ path } as never, inner.call);
  call.start(handlerListener);
  return { log, inner, call };
}

describe('refusedCallLines', () => {
  it("grpc-js's own RESOURCE_EXHAUSTED before the handler ran: INVALID_ARGUMENT -32600 with its line", () => {
    const { log, inner } = intercepted(A2AService.sendStreamingMessage.path);
    inner.call.sendStatus({ code: status.RESOURCE_EXHAUSTED, details: 'Received message larger than max (9 vs 8)', metadata: null });
    expect(inner.sent).toEqual([{ code: status.INVALID_ARGUMENT, details: 'Request payload too large', metadata: expect.any(Metadata) }]);
    expect(log.lines).toMatchObject([{ msg: 'grpc call', surface: 'grpc', method: 'SendStreamingMessage', grpcStatus: 3, errorCode: -32600 }]);
  });

  it('a deadline passed while the request arrived: its caller leaving, as service.ts logs it', () => {
    const { log, inner } = intercepted();
    inner.call.sendStatus({ code: status.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: null });
    expect(inner.sent).toMatchObject([{ code: status.DEADLINE_EXCEEDED }]);
    expect(log.lines).toMatchObject([{ method: 'SendMessage', grpcStatus: status.DEADLINE_EXCEEDED, ended: 'caller_left' }]);
    expect(log.lines[0]).not.toHaveProperty('errorCode');
  });

  it('any other status before the handler ran: answered as sent, with its line', () => {
    const { log, inner, call } = intercepted();
    call.sendStatus({ code: status.UNIMPLEMENTED, details: 'Received a second request message', metadata: null });
    expect(inner.sent).toMatchObject([{ code: status.UNIMPLEMENTED, details: 'Received a second request message' }]);
    expect(log.lines).toMatchObject([{ method: 'SendMessage', grpcStatus: status.UNIMPLEMENTED }]);
  });

  it('one line for a call, whatever grpc-js sends after its first status (which it ignores)', () => {
    const { log, inner } = intercepted();
    inner.call.sendStatus({ code: status.RESOURCE_EXHAUSTED, details: 'Received message larger than max (9 vs 8)', metadata: null });
    inner.call.sendStatus({ code: status.DEADLINE_EXCEEDED, details: 'Deadline exceeded', metadata: null });
    expect(log.lines).toMatchObject([{ grpcStatus: status.INVALID_ARGUMENT }]);
  });

  it("once the handler has the request, its statuses pass untouched and unlogged here (the handler's own line says them)", () => {
    const { log, inner, call } = intercepted();
    inner.listener().onReceiveMessage({});
    inner.listener().onReceiveHalfClose();
    call.sendStatus({ code: status.RESOURCE_EXHAUSTED, details: 'Too many turns in flight', metadata: null });
    expect(inner.sent).toMatchObject([{ code: status.RESOURCE_EXHAUSTED, details: 'Too many turns in flight' }]);
    expect(log.lines).toEqual([]);
  });
});
