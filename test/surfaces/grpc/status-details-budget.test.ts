/**
 * `grpc-status-details-bin` within a budget (src/surfaces/grpc/status-details-budget.ts): however much
 * ErrorInfo an error carries, the trailers the gateway writes stay within 7 KiB as HTTP/2 counts them
 * (C-core clients refuse past 8 KiB), the Status decodes, and what a client keys off (each ErrorInfo's
 * reason and domain, A2A's first) is the last thing dropped. A small error is encoded as it always was.
 */
import { status } from '@grpc/grpc-js';
import { GRPC_STATUS_DETAILS_BIN, decodeErrorInfo, decodeStatus } from 'a2a-sdk-1/errors/grpc';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { A2AError, ERROR_DOMAIN, ErrorCode, type ErrorInfo } from '../../../src/model/index.js';
import { toGrpcStatus, type GrpcErrorStatus } from '../../../src/surfaces/grpc/status.js';
import { encodeStatusDetails } from '../../../src/surfaces/grpc/status-details.js';
import {
  DETAILS_BYTES,
  MAX_ERROR_INFOS,
  MAX_METADATA_ENTRIES,
  METADATA_VALUE_BYTES,
  TRAILER_BYTES,
} from '../../../src/surfaces/grpc/status-details-budget.js';

const binOf = (answer: GrpcErrorStatus): Buffer | undefined => answer.metadata.get(GRPC_STATUS_DETAILS_BIN)[0] as Buffer | undefined;

function infosOf(answer: GrpcErrorStatus): ErrorInfo[] {
  return decodeStatus(binOf(answer)!).details.map((any) => decodeErrorInfo(any.value));
}

/** The trailers' size as HTTP/2 counts a header list (name + value + 32 each), `grpc-message` percent-encoded as grpc-js sends it. */
function trailerBytes(answer: GrpcErrorStatus): number {
  const bin = binOf(answer);
  const entries: Array<[string, string]> = [
    ['grpc-status', String(answer.code)],
    ['grpc-message', encodeURI(answer.details)],
    ...(bin ? [[GRPC_STATUS_DETAILS_BIN, bin.toString('base64')] as [string, string]] : []),
  ];
  return entries.reduce((sum, [name, value]) => sum + name.length + value.length + 32, 0);
}

const entries = (count: number, value: (at: number) => string): Record<string, string> =>
  Object.fromEntries(Array.from({ length: count }, (_, at) => [`key${at}`, value(at)]));

describe('ErrorInfo in grpc-status-details-bin, bounded', () => {
  it('a small error is encoded byte for byte as before', () => {
    const agentErrorInfo = [{ reason: 'UPLOADS_DISABLED', domain: 'files.example.com', metadata: { plan: 'free', note: '上传已关闭😀' } }];
    const error = new A2AError(ErrorCode.UnsupportedOperation, 'Uploads are off', { metadata: { feature: 'uploads' }, agentErrorInfo });
    const answer = toGrpcStatus(error);
    const infos = [{ reason: 'UNSUPPORTED_OPERATION', domain: ERROR_DOMAIN, metadata: { feature: 'uploads' } }, ...agentErrorInfo];
    expect(binOf(answer)).toEqual(encodeStatusDetails(status.FAILED_PRECONDITION, 'Uploads are off', infos));
  });

  it('cuts each metadata value to 256 bytes of UTF-8 at a character, ending in "..."', () => {
    const long = '资源😀'.repeat(100);
    const answer = toGrpcStatus(new A2AError(ErrorCode.TaskNotFound, 'gone', { metadata: { taskId: 't-1', why: long } }));
    const [info] = infosOf(answer);
    expect(info?.metadata.taskId).toBe('t-1');
    const why = info!.metadata.why!;
    expect(Buffer.byteLength(why)).toBeLessThanOrEqual(METADATA_VALUE_BYTES);
    expect(why.endsWith('...')).toBe(true);
    expect(long.startsWith(why.slice(0, -3))).toBe(true);
    expect(why).not.toMatch(/\p{Cs}|\ufffd/u);
  });

  it('keeps six ErrorInfo at most, twenty metadata entries each, and leaves out a key past 64 bytes', () => {
    const agentErrorInfo = Array.from({ length: 7 }, (_, at) => ({ reason: `R${at}`, domain: 'agent.example.com', metadata: {} }));
    const metadata = { ['k'.repeat(65)]: 'long key', ...entries(30, (at) => String(at)) };
    const answer = toGrpcStatus(new A2AError(ErrorCode.TaskNotFound, 'gone', { metadata, agentErrorInfo }));
    const infos = infosOf(answer);
    expect(infos.map((info) => info.reason)).toEqual(['TASK_NOT_FOUND', 'R0', 'R1', 'R2', 'R3', 'R4']);
    expect(infos).toHaveLength(MAX_ERROR_INFOS);
    expect(infos[0]?.metadata).toEqual(entries(MAX_METADATA_ENTRIES, (at) => String(at)));
  });

  it('past the budget: every reason and domain first, in order, then metadata in order until one does not fit', () => {
    const value = (at: number): string => `${at}:${'配额已用尽'.repeat(100)}`;
    const agentErrorInfo = ['QUOTA_EXCEEDED', 'REGION_FULL', 'PLAN_LIMIT', 'RATE_LIMITED'].map((reason) => ({
      reason,
      domain: 'cloud.example.com',
      metadata: entries(20, value),
    }));
    const error = new A2AError(ErrorCode.UnsupportedOperation, 'Quota exhausted', { metadata: entries(200, value), agentErrorInfo });
    const answer = toGrpcStatus(error);
    expect(binOf(answer)!.length).toBeLessThanOrEqual(DETAILS_BYTES);
    expect(trailerBytes(answer)).toBeLessThanOrEqual(TRAILER_BYTES);
    const infos = infosOf(answer);
    expect(infos.map(({ reason, domain }) => [reason, domain])).toEqual([
      ['UNSUPPORTED_OPERATION', ERROR_DOMAIN],
      ...agentErrorInfo.map(({ reason, domain }) => [reason, domain]),
    ]);
    // A2A's metadata is filled first, from its first entry on; the agent's ErrorInfo get what is left (here: none).
    const kept = Object.keys(infos[0]!.metadata);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(Object.keys(entries(kept.length, value)));
    expect(infos.slice(1).every((info) => Object.keys(info.metadata).length === 0)).toBe(true);
  });

  it("with the longest message grpc-message can carry, still the first ErrorInfo's reason and domain, within 7 KiB", () => {
    // 1,500 bytes that encodeURI writes as three characters each (4,500 on the wire), no A2A reason (an
    // agent's own -32603), the agent's ErrorInfo as long as upstream-errors.ts lets one be.
    const message = ' '.repeat(2_000);
    const own = {
      reason: `R${'E'.repeat(62)}`,
      domain: `${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(63)}.${'g'.repeat(61)}`,
      metadata: entries(20, () => 'x'.repeat(300)),
    };
    const answer = toGrpcStatus(new A2AError(ErrorCode.Internal, message, { agentErrorInfo: [own] }));
    expect(answer.code).toBe(status.INTERNAL);
    expect(Buffer.byteLength(answer.details)).toBe(1_500);
    expect(infosOf(answer)[0]).toMatchObject({ reason: own.reason, domain: own.domain });
    expect(trailerBytes(answer)).toBeLessThanOrEqual(TRAILER_BYTES);
  });

  it('any ErrorInfo and message: a Status that decodes to the message and a prefix of the ErrorInfo, within 7 KiB', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 600, size: 'large' });
    const longer = fc.tuple(text, fc.integer({ min: 1, max: 8 })).map(([words, times]) => words.repeat(times));
    const info = fc.record({
      reason: fc.stringMatching(/^[A-Z][A-Z0-9_]{0,61}[A-Z0-9]$/),
      domain: fc.domain(),
      // Long values too: upstream-errors.ts takes up to 1,000 characters.
      metadata: fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/), longer, { maxKeys: 25, size: 'large' }),
    });
    fc.assert(
      fc.property(text, fc.array(info, { maxLength: 6 }), fc.integer({ min: 1, max: 4 }), (words, agentErrorInfo, repeat) => {
        const error = new A2AError(ErrorCode.InvalidParams, words.repeat(repeat) || 'bad', { agentErrorInfo });
        const answer = toGrpcStatus(error);
        expect(trailerBytes(answer)).toBeLessThanOrEqual(TRAILER_BYTES);
        const decoded = decodeStatus(binOf(answer)!);
        expect(decoded).toMatchObject({ code: status.INVALID_ARGUMENT, message: answer.details });
        const sent = [{ reason: 'INVALID_PARAMS', domain: ERROR_DOMAIN, metadata: {} as Record<string, string> }, ...agentErrorInfo];
        decoded.details
          .map((any) => decodeErrorInfo(any.value))
          .forEach((got, at) => {
            expect(got).toMatchObject({ reason: sent[at]!.reason, domain: sent[at]!.domain });
            for (const [key, value] of Object.entries(got.metadata)) {
              const original = sent[at]!.metadata[key]!;
              expect(value === original || (value.endsWith('...') && original.startsWith(value.slice(0, -3)))).toBe(true);
            }
          });
      }),
      // A failure shrinks for minutes through values this long: the first counterexample is enough.
      { numRuns: 200, endOnFailure: true },
    );
  });
});
