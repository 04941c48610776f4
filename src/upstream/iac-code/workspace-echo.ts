import { posix } from 'node:path';
import { isRecord } from '../../model/json.js';
import { withFields, type Artifact, type Message, type StreamResponse, type Task } from '../../model/index.js';

/**
 * What iac-code says back about a turn's workspace (workspaces.ts), taken out before a caller sees it:
 * the folder the gateway named is the conversation's, not the caller's to know. iac-code echoes the
 * turn's metadata into the task's history, and newer servers name a file's `sourcePath` (read in its
 * source) in an artifact's metadata and its parts'.
 */
export function unechoed(task: Task, root: string): Task {
  const history = task.history?.some((message) => namesFolder(message, root))
    ? task.history.map((message) => withoutFolder(message, root))
    : undefined;
  const artifacts = task.artifacts?.some((artifact) => namesSource(artifact, root))
    ? task.artifacts.map((artifact) => artifactUnechoed(artifact, root))
    : undefined;
  if (!history && !artifacts) return task;
  return withFields(task, withFields(history ? { history } : {}, artifacts ? { artifacts } : {}));
}

/** A stream event without the workspace: a task's echo, an artifact's source path. */
export function eventUnechoed(event: StreamResponse, root: string): StreamResponse {
  if ('task' in event) return { task: unechoed(event.task, root) };
  if ('artifactUpdate' in event && namesSource(event.artifactUpdate.artifact, root)) {
    return { artifactUpdate: withFields(event.artifactUpdate, { artifact: artifactUnechoed(event.artifactUpdate.artifact, root) }) };
  }
  return event;
}

/** A path under the workspace root (written with or without a trailing slash): some conversation's folder, or a file in it. Only the gateway names those. */
const underRoot = (path: unknown, root: string): boolean => typeof path === 'string' && path.startsWith(posix.join(root, '/'));

function namesFolder(message: Message, root: string): boolean {
  const iacCode = message.metadata?.iac_code;
  return isRecord(iacCode) && underRoot(iacCode.cwd, root);
}

function withoutFolder(message: Message, root: string): Message {
  if (!namesFolder(message, root)) return message;
  const { cwd: _folder, ...rest } = message.metadata!.iac_code as Record<string, unknown>;
  const { iac_code: _iacCode, ...others } = message.metadata!;
  const metadata = Object.keys(rest).length > 0 ? withFields(others, { iac_code: rest }) : others;
  if (Object.keys(metadata).length > 0) return withFields(message, { metadata });
  const { metadata: _metadata, ...bare } = message;
  return bare;
}

type WithMetadata = { metadata?: Record<string, unknown> | undefined };

const sourceUnderRoot = (item: WithMetadata, root: string): boolean => underRoot(item.metadata?.sourcePath, root);

const namesSource = (artifact: Artifact, root: string): boolean =>
  sourceUnderRoot(artifact, root) || artifact.parts.some((part) => sourceUnderRoot(part, root));

function artifactUnechoed(artifact: Artifact, root: string): Artifact {
  const parts = artifact.parts.some((part) => sourceUnderRoot(part, root)) ? artifact.parts.map((part) => withoutSource(part, root)) : artifact.parts;
  const own = withoutSource(artifact, root);
  return parts === artifact.parts ? own : withFields(own, { parts });
}

function withoutSource<T extends WithMetadata>(item: T, root: string): T {
  if (!sourceUnderRoot(item, root)) return item;
  const { sourcePath: _path, ...rest } = item.metadata!;
  if (Object.keys(rest).length > 0) return withFields(item, { metadata: rest });
  const { metadata: _metadata, ...bare } = item;
  return bare as T;
}
