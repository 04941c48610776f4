import { GRPC_STATUS_DETAILS_BIN } from '@a2a-js/sdk/errors/grpc';
import { withFields, type ErrorInfo } from '../../model/index.js';
import { encodeStatusDetails } from './status-details.js';
import { cutUtf8 } from './utf8-cut.js';

/**
 * How much of an error's ErrorInfo goes into `grpc-status-details-bin`. The gateway relays an agent's
 * ErrorInfo (upstream-errors.ts: A2A's metadata, four of its own, twenty entries of up to 1,000
 * characters each): hundreds of KB at most. gRPC's C-core clients (Python, C++) refuse trailers past 8 KiB,
 * and past some 64 KB a grpc-js client never sees the answer (it waits out its deadline, and so do later
 * calls on the same connection): either way the caller learns nothing of the error. So the trailers are
 * bounded whole, the message (already cut, status.ts) and the status code always kept.
 */

/**
 * Bytes of the trailers the gateway writes (`grpc-status`, `grpc-message`, `grpc-status-details-bin`),
 * counted as HTTP/2 counts a header list (RFC 7541: name + value + 32 each), which is how C-core checks
 * its 8 KiB. The other KiB is for `:status` and `content-type` (sent with them when nothing came before)
 * and to spare.
 */
export const TRAILER_BYTES = 7 * 1024;
/** The encoded google.rpc.Status at most, however short the message: what a caller needs of ErrorInfo fits well within it. */
export const DETAILS_BYTES = 4 * 1024;
/** A2A's ErrorInfo, the gateway's own and the agent's own (upstream-errors.ts relays four). */
export const MAX_ERROR_INFOS = 6;
/** Entries of one ErrorInfo's metadata (as many as upstream-errors.ts takes from an agent). */
export const MAX_METADATA_ENTRIES = 20;
/** A metadata value's bytes of UTF-8: an id, a limit, a plan's name; not a report (the message is for that). */
export const METADATA_VALUE_BYTES = 256;
/** A metadata key's bytes: a longer one is left out, not cut (a cut key would name something else). */
const METADATA_KEY_BYTES = 64;

/** An HTTP/2 header's size in a header list (RFC 7541, 4.1). */
const headerSize = (name: string, value: string): number => name.length + value.length + 32;

/** The length of `grpc-message` as grpc-js sends it (`encodeURI`); a text encodeURI refuses counts at its worst, three characters a byte. */
function messageLengthOnWire(message: string): number {
  try {
    return encodeURI(message).length;
  } catch {
    return Buffer.byteLength(message) * 3;
  }
}

/** Bytes the encoded Status may take: what its base64 leaves of TRAILER_BYTES after the status and the message, DETAILS_BYTES at most. */
export function detailsBudget(code: number, message: string): number {
  const taken =
    headerSize('grpc-status', String(code)) + headerSize('grpc-message', '') + messageLengthOnWire(message) + headerSize(GRPC_STATUS_DETAILS_BIN, '');
  // Base64 writes 4 characters for every 3 bytes (the last group padded).
  return Math.max(0, Math.min(DETAILS_BYTES, Math.floor((TRAILER_BYTES - taken) / 4) * 3));
}

/** An ErrorInfo with at most MAX_METADATA_ENTRIES entries, each value cut to METADATA_VALUE_BYTES. */
function withBoundedMetadata(info: ErrorInfo): ErrorInfo {
  const entries = Object.entries(info.metadata)
    .filter(([key]) => Buffer.byteLength(key) <= METADATA_KEY_BYTES)
    .slice(0, MAX_METADATA_ENTRIES)
    .map(([key, value]) => [key, cutUtf8(value, METADATA_VALUE_BYTES)]);
  return { reason: info.reason, domain: info.domain, metadata: Object.fromEntries(entries) as Record<string, string> };
}

/**
 * `grpc-status-details-bin` for an error's ErrorInfo (A2A's first, then the gateway's own, then the agent's: errorInfos), within
 * detailsBudget; undefined when not even the first one's reason and domain fit. What a client keys off
 * comes first: every ErrorInfo's reason and domain in order, then their metadata entries in order, each
 * as long as it fits; the first that does not ends it, so what is dropped is dropped whole, the last
 * first, and the Status stays valid protobuf. Metadata is bounded first (withBoundedMetadata), so a small
 * error is encoded as it always was.
 */
export function statusDetailsWithinBudget(code: number, message: string, infos: readonly ErrorInfo[]): Buffer | undefined {
  const budget = detailsBudget(code, message);
  const bounded = infos.slice(0, MAX_ERROR_INFOS).map(withBoundedMetadata);
  const whole = encodeStatusDetails(code, message, bounded);
  if (whole.length <= budget) return whole;

  const kept: ErrorInfo[] = [];
  const fits = (candidate: ErrorInfo[]): boolean => encodeStatusDetails(code, message, candidate).length <= budget;
  for (const { reason, domain } of bounded) {
    if (!fits([...kept, { reason, domain, metadata: {} }])) break;
    kept.push({ reason, domain, metadata: {} });
  }
  fillMetadata(kept, bounded, fits);
  return kept.length > 0 ? encodeStatusDetails(code, message, kept) : undefined;
}

/** Adds the metadata entries of `from` to `kept` (the same infos, in order) until one does not fit. */
function fillMetadata(kept: ErrorInfo[], from: readonly ErrorInfo[], fits: (candidate: ErrorInfo[]) => boolean): void {
  for (let at = 0; at < kept.length; at++) {
    for (const [key, value] of Object.entries(from[at]!.metadata)) {
      const { reason, domain, metadata } = kept[at]!;
      const grown = { reason, domain, metadata: withFields(metadata, { [key]: value }) };
      if (!fits(kept.with(at, grown))) return;
      kept[at] = grown;
    }
  }
}
