import { withFields, type Artifact, type Message, type Part, type StreamResponse, type Task } from '../model/index.js';
import type { AgentPort, CallContext } from './agent-port.js';
import { concurrencyLimit } from './concurrency-limit.js';
import { overlay } from './overlay.js';

/** Reads what an agent's opaque artifact parts stand for; a part it cannot read comes back as it is. */
export interface ArtifactReader {
  /** Whether `inline` would read anything for this part (checked per part, without I/O). */
  handles(part: Part): boolean;
  inline(part: Part): Promise<Part>;
}

/**
 * An AgentPort decorator that shows callers the content of artifacts only their agent can open: each
 * part the reader handles (iac-code's `iac-code-artifact://` urls) becomes a `raw` part holding the
 * file's bytes, read from the folder the agent shares with the gateway. The registry below keeps the URL; only the
 * calls that `applies` to (the 0.2.5 facade, and 1.0 callers when the operator opts in) see bytes.
 */
export function inlineArtifacts<P extends AgentPort>(port: P, reader: ArtifactReader, applies: (ctx: CallContext) => boolean): P {
  const { task, event, events } = inliner(reader);
  const methods: Partial<AgentPort> = {
    async sendMessage(request, ctx) {
      const response = await port.sendMessage(request, ctx);
      return applies(ctx) ? ((await event(response)) as typeof response) : response;
    },
    sendStreamingMessage(request, ctx) {
      const source = port.sendStreamingMessage(request, ctx);
      if (!applies(ctx)) return source;
      return request.message.taskId ? events(source, keptOpening) : events(source);
    },
    subscribeToTask(request, ctx) {
      const source = port.subscribeToTask(request, ctx);
      return applies(ctx) ? events(source) : source;
    },
    async getTask(request, ctx) {
      const found = await port.getTask(request, ctx);
      return applies(ctx) ? task(found) : found;
    },
    async listTasks(request, ctx) {
      const listed = await port.listTasks(request, ctx);
      if (!applies(ctx)) return listed;
      // A page holds up to its size of tasks, each with files of up to the reader's bound: read a few at a time,
      // and none once the caller has left (what is left unread keeps its URL, as a file the reader refuses does).
      const page = boundedInliner(reader, ctx.signal);
      return withFields(listed, { tasks: await Promise.all(listed.tasks.map(page.task)) });
    },
    async cancelTask(request, ctx) {
      const canceled = await port.cancelTask(request, ctx);
      return applies(ctx) ? task(canceled) : canceled;
    },
  };
  // The other methods (and what decorators below added, like `settled`) stay the port's own.
  return overlay(port, methods);
}

/**
 * A follow-up's stream opening with its task as it stood, SUBMITTED (core/stream-opening.ts: iac-code opens a
 * follow-up with an update alone): its files are the earlier turns', which the caller was shown, and reading them
 * all (the facade shows none of an opening Task's) would hold back the turn's first event for every answer to a
 * question. They keep their URLs there; the turn's own files come read in, as ever.
 */
const keptOpening = (first: StreamResponse): boolean => 'task' in first && first.task.status.state === 'TASK_STATE_SUBMITTED';

/** How many of a ListTasks page's files (or a pushed event's) are read at once. */
const LIST_READS_AT_ONCE = 4;

/** What `reader` makes of `part`, or `part` as it was once `signal` is aborted: a read still going then (a hung disk) is not waited for. */
async function readUnlessAborted(reader: ArtifactReader, part: Part, signal: AbortSignal): Promise<Part> {
  if (signal.aborted) return part;
  let onAbort = (): void => undefined;
  const aborted = new Promise<Part>((resolve) => {
    onAbort = () => resolve(part);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([reader.inline(part), aborted]);
  } finally {
    // Only the reads under way listen: a page of files adds no listener per file to the caller's signal.
    signal.removeEventListener('abort', onAbort);
  }
}

/** `reader`, reading at most LIST_READS_AT_ONCE parts at a time, and none once `signal` is aborted (a part left unread keeps its URL). */
function boundedReader(reader: ArtifactReader, signal: AbortSignal): ArtifactReader {
  const limit = concurrencyLimit(LIST_READS_AT_ONCE);
  return {
    handles: (part) => reader.handles(part),
    inline: (part) => limit(() => readUnlessAborted(reader, part, signal)),
  };
}

/**
 * What `reader` inlines, read as a ListTasks page's files are (a few at a time, none once `signal` is aborted: a
 * part left unread keeps its URL): what webhooks are pushed of the files (gateway-push.ts).
 */
export const boundedInliner = (reader: ArtifactReader, signal: AbortSignal) => inliner(boundedReader(reader, signal));

/** What `reader` inlines, read into each shape that carries artifact parts (a part it does not handle costs no I/O). */
function inliner(reader: ArtifactReader) {
  async function parts(list: Part[]): Promise<Part[]> {
    if (!list.some((part) => reader.handles(part))) return list;
    return Promise.all(list.map((part) => (reader.handles(part) ? reader.inline(part) : Promise.resolve(part))));
  }
  async function artifact(value: Artifact): Promise<Artifact> {
    const inlined = await parts(value.parts);
    return inlined === value.parts ? value : withFields(value, { parts: inlined });
  }
  async function message(value: Message): Promise<Message> {
    const inlined = await parts(value.parts);
    return inlined === value.parts ? value : withFields(value, { parts: inlined });
  }
  async function task(value: Task): Promise<Task> {
    const artifacts = value.artifacts ? await Promise.all(value.artifacts.map(artifact)) : undefined;
    const statusMessage = value.status.message ? await message(value.status.message) : undefined;
    const status = statusMessage ? withFields(value.status, { message: statusMessage }) : value.status;
    return withFields(value, artifacts ? { artifacts, status } : { status });
  }
  async function event(value: StreamResponse): Promise<StreamResponse> {
    if ('artifactUpdate' in value)
      return { artifactUpdate: withFields(value.artifactUpdate, { artifact: await artifact(value.artifactUpdate.artifact) }) };
    if ('task' in value) return { task: await task(value.task) };
    if ('message' in value) return { message: await message(value.message) };
    return value;
  }
  /** The events with their files read in; the first one as it is when `keep` says so. */
  async function* events(source: AsyncIterable<StreamResponse>, keep?: (first: StreamResponse) => boolean): AsyncGenerator<StreamResponse> {
    let first = true;
    for await (const value of source) {
      const kept = first && keep?.(value) === true;
      first = false;
      yield kept ? value : await event(value);
    }
  }

  return { task, event, events };
}
