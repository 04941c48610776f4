/**
 * What a caller saw, put in the agent's terms so a test compares it with what the agent said: the status
 * lines of a stream (state and words, in order), the artifacts a stream built up (appends honoured), and
 * the same of a Task (its history's agent lines, its status line, its artifacts).
 */
import { Role, type Artifact, type Part, type Task } from 'a2a-sdk-1';
import type { Payload } from '../../support/sdk-v1-client.js';

const STATE_NAMES: Record<number, string> = {
  1: 'submitted',
  2: 'working',
  3: 'completed',
  4: 'failed',
  5: 'canceled',
  6: 'input-required',
  7: 'rejected',
  8: 'auth-required',
};
export const stateName = (state: number | undefined): string => STATE_NAMES[state ?? 0] ?? `state-${String(state)}`;

/** A part as a test compares it: its kind and content (bytes as text), with its file name and media type. */
export function partSeen(part: Part): string {
  const content = part.content;
  const named = [part.filename, part.mediaType].filter(Boolean).join(' ');
  const head = named ? `[${named}] ` : '';
  if (!content) return `${head}(empty)`;
  switch (content.$case) {
    case 'text':
      return `${head}${content.value}`;
    case 'raw':
      return `${head}raw:${Buffer.from(content.value).toString('utf8')}`;
    case 'data':
      return `${head}data:${JSON.stringify(content.value)}`;
    case 'url':
      return `${head}url:${content.value}`;
  }
}

/** The status lines of a stream, `state: words` each, in order (a status without words is its state alone). */
export function streamedLines(payloads: Payload[]): string[] {
  return payloads.flatMap((payload) => {
    if (payload.$case !== 'statusUpdate') return [];
    const status = payload.value.status;
    const words = status?.message?.parts.map(partSeen).join('') ?? '';
    return [words ? `${stateName(status?.state)}: ${words}` : stateName(status?.state)];
  });
}

/** The artifacts a stream built up, by id: each part as `partSeen` has it, appended chunks joined to their text. */
export function streamedArtifacts(payloads: Payload[], from: Artifact[] = []): Record<string, string[]> {
  const built = new Map<string, string[]>(from.map((artifact) => [artifact.artifactId, artifact.parts.map(partSeen)]));
  for (const payload of payloads) {
    if (payload.$case === 'task') for (const artifact of payload.value.artifacts) built.set(artifact.artifactId, artifact.parts.map(partSeen));
    if (payload.$case !== 'artifactUpdate' || !payload.value.artifact) continue;
    const { artifactId, parts } = payload.value.artifact;
    const seen = parts.map(partSeen);
    built.set(artifactId, payload.value.append ? [...(built.get(artifactId) ?? []), ...seen] : seen);
  }
  return Object.fromEntries([...built].map(([id, parts]) => [id, joinTexts(parts)]));
}

/** Adjacent plain text parts joined, as a reader reads appended chunks. */
function joinTexts(parts: string[]): string[] {
  const joined: string[] = [];
  for (const part of parts) {
    const last = joined.length - 1;
    if (last >= 0 && isPlainText(part) && isPlainText(joined[last]!)) joined[last] = `${joined[last]!}${stripTextHead(part)}`;
    else joined.push(part);
  }
  return joined;
}
const isPlainText = (seen: string): boolean => !/^\[[^\]]*\] (raw|data|url):/.test(seen) && !/^(raw|data|url):/.test(seen);
const stripTextHead = (seen: string): string => seen.replace(/^\[text\/plain\] /, '');

/** A task's artifacts as `streamedArtifacts` has a stream's. */
export const taskArtifacts = (task: Task): Record<string, string[]> =>
  Object.fromEntries(task.artifacts.map((artifact) => [artifact.artifactId, joinTexts(artifact.parts.map(partSeen))]));

/** What the agent said in a task's history, in order, each line once as it is kept (the user's lines `user: ...`). */
export function historyLines(task: Task): string[] {
  return task.history.map((message) => `${message.role === Role.ROLE_USER ? 'user' : 'agent'}: ${message.parts.map(partSeen).join('')}`);
}
