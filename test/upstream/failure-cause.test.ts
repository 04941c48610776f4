import { describe, expect, it } from 'vitest';
import { A2AError } from '../../src/model/index.js';
import { fromTransportError } from '../../src/upstream/upstream-errors.js';
import { failureCause, isServerFailure } from '../../src/upstream/failure-cause.js';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('failureCause', () => {
  it("names the transport error a failed upstream call kept, and its code, not the caller's words", () => {
    const failure = fromTransportError(withCode('connect ECONNREFUSED 10.0.0.5:8000', 'ECONNREFUSED'));
    expect(failure.message).toBe('Upstream agent is unavailable');
    expect(failureCause(failure)).toEqual({ cause: 'connect ECONNREFUSED 10.0.0.5:8000', causeCode: 'ECONNREFUSED' });
    // Never part of what a caller is sent.
    expect(JSON.stringify(failure)).not.toContain('10.0.0.5');
  });

  it('finds the code of a wrapped error and the message of a dual-stack connect (an AggregateError)', () => {
    const wrapped = Object.assign(new TypeError('fetch failed'), { cause: withCode('read ECONNRESET', 'ECONNRESET') });
    expect(failureCause(fromTransportError(wrapped))).toEqual({ cause: 'fetch failed', causeCode: 'ECONNRESET' });
    const both = new AggregateError([withCode('connect ECONNREFUSED ::1:8000', 'ECONNREFUSED')], '');
    expect(failureCause(fromTransportError(both))).toEqual({ cause: 'connect ECONNREFUSED ::1:8000', causeCode: 'ECONNREFUSED' });
  });

  it('scrubs credentials a cause repeats', () => {
    const failure = fromTransportError(new Error('getaddrinfo ENOTFOUND for https://gw:pw-123456@agent.internal/a2a token=tk-7890abcd'), {
      timedOut: true,
    });
    const { cause } = failureCause(failure);
    expect(cause).not.toContain('pw-123456');
    expect(cause).not.toContain('tk-7890abcd');
    expect(cause).toContain('ENOTFOUND');
  });

  it("scrubs a signed URL's query and a password holding an '@'", () => {
    const failure = fromTransportError(
      new Error('connect ECONNREFUSED https://op:p@ss-w0rd@agent.internal/a2a?key=AIzaSy-SECRET123&sig=SIGVALUE999'),
    );
    const { cause } = failureCause(failure);
    for (const secret of ['ss-w0rd', 'AIzaSy-SECRET123', 'SIGVALUE999']) expect(cause).not.toContain(secret);
    expect(cause).toContain('agent.internal/a2a');
  });

  it('a call its caller left is no upstream failure', () => {
    const left = new AbortController();
    left.abort();
    expect(isServerFailure(fromTransportError(new Error('aborted'), { caller: left.signal }))).toBe(false);
  });

  it("is the error's own message when nothing is kept, and only failures no fault of the caller's count", () => {
    expect(failureCause(A2AError.invalidAgentResponse('The upstream agent answered HTTP 502'))).toEqual({
      cause: 'The upstream agent answered HTTP 502',
    });
    expect(isServerFailure(A2AError.internal())).toBe(true);
    expect(isServerFailure(A2AError.invalidParams('bad'))).toBe(false);
    expect(isServerFailure(A2AError.tooManyTurnsInFlight(2))).toBe(false);
  });
});
