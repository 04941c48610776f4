import { withHistoryLength, A2AError, type ListTasksRequest, type Task } from '../../model/index.js';
import { toRfc3339Utc } from '../../translate/index.js';

/**
 * ListTasks semantics shared by every store (iac-code `A2ATaskStore.list` + SDK `on_list_tasks`):
 * order by status timestamp DESC then task id DESC, tasks without a timestamp last. Both stores
 * order by one string, the sort member `<timestamp key>|<task id>`, whose plain lexicographic
 * order is exactly that order (the timestamp key has a fixed width), so the page token can be the
 * last member of a page and paging is keyset-exact in memory and in a Redis ZSET alike.
 */

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

const NO_TIMESTAMP_KEY = '0'.repeat(19);
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:?\d{2})?$/;
const MEMBER = /^(?:0{19}|1\d{18})\|[\s\S]+$/;

/** Effective page size, validated like iac-code (1..100, default 50). */
export function pageSizeOf(request: ListTasksRequest): number {
  const size = request.pageSize;
  if (size === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1) throw A2AError.invalidParams('minimum page size is 1');
  if (size > MAX_PAGE_SIZE) throw A2AError.invalidParams('maximum page size is 100');
  return size;
}

/**
 * A fixed-width, lexicographically ordered key of an RFC 3339 timestamp with microsecond
 * precision: '1' + 12 digits of epoch seconds + 6 digits of microseconds. Missing or unparsable
 * timestamps get all zeros, which sorts after every real one in descending order. A missing zone
 * is read as UTC (0.2.5 agents send loose ISO 8601).
 */
export function timestampKey(timestamp: string | undefined): string {
  if (!timestamp) return NO_TIMESTAMP_KEY;
  const match = RFC3339.exec(timestamp);
  if (!match) return NO_TIMESTAMP_KEY;
  const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = match;
  let seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    seconds -= sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2)) * 60);
  }
  if (!Number.isFinite(seconds) || seconds < 0 || seconds >= 1e12) return NO_TIMESTAMP_KEY;
  return `1${String(seconds).padStart(12, '0')}${fraction.slice(0, 6).padEnd(6, '0')}`;
}

export function hasTimestampKey(key: string): boolean {
  return key !== NO_TIMESTAMP_KEY;
}

/** The list-order key of a task: compare as plain strings, larger comes first. */
export function sortMember(task: Task): string {
  return `${timestampKey(task.status.timestamp)}|${task.id}`;
}

export function memberTaskId(member: string): string {
  return member.slice(20);
}

/** The timestamp key a task must exceed for `statusTimestampAfter`, or undefined without the filter. */
export function afterKeyOf(request: ListTasksRequest): string | undefined {
  const after = request.statusTimestampAfter;
  if (after === undefined || after === '') return undefined;
  const key = timestampKey(after);
  // A day the month lacks, hour 24, minute 60 or an offset past a day's would be read as another instant.
  if (!hasTimestampKey(key) || toRfc3339Utc(after) === undefined) throw A2AError.invalidParams(`Invalid statusTimestampAfter: ${after.slice(0, 64)}`);
  return key;
}

/** Does a member pass the `statusTimestampAfter` filter (tasks without a timestamp never do)? */
export function isAfter(member: string, afterKey: string | undefined): boolean {
  if (afterKey === undefined) return true;
  return member.slice(0, 19) > afterKey;
}

export function encodePageToken(member: string): string {
  return Buffer.from(JSON.stringify({ m: member }), 'utf8').toString('base64url');
}

/** The member the next page starts after; -32602 `Invalid page token: <token>` for anything we did not issue. */
export function decodePageToken(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  const invalid = () => A2AError.invalidParams(`Invalid page token: ${token.slice(0, 200)}`);
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  let cursor: unknown;
  try {
    cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const member = (cursor as { m?: unknown } | null)?.m;
  if (typeof member !== 'string' || !MEMBER.test(member)) throw invalid();
  return member;
}

/** A ListTasks entry: history trimmed, artifacts only with includeArtifacts. */
export function listEntry(task: Task, request: ListTasksRequest): Task {
  const trimmed = withHistoryLength(task, request.historyLength);
  if (request.includeArtifacts || trimmed.artifacts === undefined) return trimmed;
  const { artifacts: _dropped, ...rest } = trimmed;
  return rest;
}
