import { withFields, type Message, type Part, type Task } from '../../model/index.js';

/**
 * A caller's large raw parts are not kept in a stored task's history (`tasks.history-part-max-bytes`).
 * The caller has its own bytes and the agent got them; the registry answers ListTasks and keeps each
 * context's latest task for the facade's follow-ups. A user's photos (Bailian's URL images, fetched and
 * inlined as base64) would otherwise fill the memory registry's byte budget, evicting other callers'
 * tasks, or sit in Redis for a day. Such a part is kept as one line that names it instead. The agent's
 * own messages and artifacts are kept whole.
 */
export function withoutLargeUserParts(task: Task, maxBytes: number): Task {
  const history = task.history;
  if (maxBytes === Infinity || !history?.some((message) => hasLargePart(message, maxBytes))) return task;
  return withFields(task, { history: history.map((message) => (hasLargePart(message, maxBytes) ? shrunk(message, maxBytes) : message)) });
}

/** The size of a base64 payload, without decoding it. */
function rawBytes(raw: string): number {
  const padding = raw.endsWith('==') ? 2 : raw.endsWith('=') ? 1 : 0;
  return Math.floor((raw.length * 3) / 4) - padding;
}

const isLarge = (part: Part, maxBytes: number): boolean => part.raw !== undefined && rawBytes(part.raw) > maxBytes;

function hasLargePart(message: Message, maxBytes: number): boolean {
  return message.role === 'ROLE_USER' && message.parts.some((part) => isLarge(part, maxBytes));
}

function shrunk(message: Message, maxBytes: number): Message {
  return withFields(message, { parts: message.parts.map((part) => (isLarge(part, maxBytes) ? standIn(part) : part)) });
}

/** KiB or MiB, one decimal. */
function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** What a large raw part is kept as: a line naming it, its type and size (also in the metadata, for programs). */
function standIn(part: Part): Part {
  const bytes = rawBytes(part.raw!);
  const mediaType = part.mediaType ?? 'application/octet-stream';
  const name = part.filename ?? 'a file';
  return {
    text: `[${name} (${mediaType}, ${size(bytes)}) was sent; the gateway keeps no copy]`,
    mediaType: 'text/plain',
    ...(part.filename ? { filename: part.filename } : {}),
    metadata: withFields(part.metadata, { omittedRaw: { mediaType, bytes } }),
  };
}
