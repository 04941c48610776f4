import { createHash, randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { AgentPort, CallContext } from '../../core/agent-port.js';
import { deferIterable, tapIterable } from '../../core/iterables.js';
import { overlay } from '../../core/overlay.js';
import { isRecord } from '../../model/json.js';
import { withFields, type SendMessageRequest, type StreamResponse, type Task } from '../../model/index.js';
import { withTaskContext, type ContextOf } from './task-context.js';
import { withSettingsEdited } from './turn-settings.js';
import { eventUnechoed, unechoed } from './workspace-echo.js';
import { expandIterable } from './expanding-iterable.js';
import { messageRelativeOf, RelativeEvents, taskRelative, type FolderOf } from './workspace-path-events.js';
import type { WorkspaceActivity } from './workspace-activity.js';

/**
 * One workspace per conversation (`upstream.workspace-root`). iac-code works in the folder a message
 * names in `metadata.iac_code.cwd`, and without one in its own process folder: every caller of a gateway
 * (every Bailian user behind one key) would write its templates into one folder and could read the
 * others'. With a root, every turn names `<root>/ctx-<digest of its context id>`: the same folder for
 * every turn of a conversation (iac-code binds a context to its first folder and fails a turn that names
 * another), a different one for every other. A digest, because a context id may be `..`. What a caller
 * set itself is replaced: its own folder is no boundary between callers. iac-code creates the folder; the
 * root must lie within its allowed roots (`IACCODE_A2A_ALLOWED_CWDS`).
 */
export function workspaceOf(root: string, contextId: string): string {
  return posix.join(root, `ctx-${createHash('sha256').update(contextId).digest('hex').slice(0, 32)}`);
}

export interface WorkspaceOptions {
  root: string;
  /** The context of a task the caller names without one (a 1.0 follow-up by taskId alone): the registry's (task-context.ts). */
  contextOf: ContextOf;
  /** With `upstream.workspace-prune`: every turn's start is noted, so that its folder is not pruned under it. */
  activity?: WorkspaceActivity;
}

const NOTHING_TO_END = (): void => {};

/**
 * The agent's port with every turn in its conversation's workspace, and that folder kept out of what the
 * agent echoes and says (its words name files relative to it: workspace-path-events.ts).
 */
export function givingWorkspaces(inner: AgentPort, options: WorkspaceOptions): AgentPort {
  const { root } = options;

  async function inWorkspace(request: SendMessageRequest, ctx: CallContext): Promise<SendMessageRequest> {
    const named = await withTaskContext(request, options.contextOf, ctx);
    const { message } = named;
    // A new conversation gets its id here, so that its first turn already has its folder (iac-code takes a caller's id).
    const contextId = message.contextId ?? (message.taskId ? undefined : randomUUID());
    // A task the gateway cannot place gets no folder of ours, and none of the caller's either (iac-code then
    // holds the task's context to the folder it was bound to).
    if (contextId === undefined) return placedIn(named, undefined);
    return placedIn(withFields(named, { message: withFields(message, { contextId }) }), workspaceOf(root, contextId));
  }

  /** The turn in its workspace, its start noted (with `activity`) before it goes on; and what ends the note. */
  async function turn(request: SendMessageRequest, ctx: CallContext): Promise<{ placed: SendMessageRequest; end: () => void }> {
    const placed = await inWorkspace(request, ctx);
    // A turn left without a context names no folder of ours.
    const { contextId } = placed.message;
    if (!options.activity || contextId === undefined) return { placed, end: NOTHING_TO_END };
    return { placed, end: await options.activity.begin(workspaceOf(root, contextId)) };
  }

  const folderOf: FolderOf = (contextId) => workspaceOf(root, contextId);
  const task = (value: Task): Task => taskRelative(unechoed(value, root), folderOf);
  // One stream's events: a path split between its text chunks is found across them (workspace-path-events.ts).
  const events = (stream: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> => {
    const relative = new RelativeEvents(folderOf);
    return expandIterable(stream, (value) => relative.next(eventUnechoed(value, root)));
  };

  return overlay(inner, {
    sendMessage: async (request, ctx) => {
      const { placed, end } = await turn(request, ctx);
      try {
        const answer = await inner.sendMessage(placed, ctx);
        return 'task' in answer ? { task: task(answer.task) } : { message: messageRelativeOf(answer.message, folderOf) };
      } finally {
        end();
      }
    },
    sendStreamingMessage: (request, ctx) =>
      events(
        deferIterable(async () => {
          const { placed, end } = await turn(request, ctx);
          try {
            return tapIterable(inner.sendStreamingMessage(placed, ctx), { end });
          } catch (error) {
            end();
            throw error;
          }
        }),
      ),
    subscribeToTask: (request, ctx) => events(inner.subscribeToTask(request, ctx)),
    getTask: async (request, ctx) => task(await inner.getTask(request, ctx)),
    cancelTask: async (request, ctx) => task(await inner.cancelTask(request, ctx)),
  });
}

/**
 * The request with `folder` as its only workspace (none when undefined), wherever iac-code reads the
 * turn's settings (turn-settings.ts).
 */
const placedIn = (request: SendMessageRequest, folder: string | undefined): SendMessageRequest =>
  withSettingsEdited(request, (metadata) => withFolder(metadata, folder));

/** `metadata` with `iac_code.cwd` set to `folder`, or without a `cwd` when there is no folder; the same object when that changes nothing. */
function withFolder(metadata: Record<string, unknown> | undefined, folder: string | undefined): Record<string, unknown> | undefined {
  const iacCode = isRecord(metadata?.iac_code) ? metadata.iac_code : undefined;
  if (folder !== undefined) return withFields(metadata, { iac_code: withFields(iacCode, { cwd: folder }) });
  if (iacCode?.cwd === undefined) return metadata;
  const { cwd: _theirs, ...rest } = iacCode;
  return withFields(metadata, { iac_code: rest });
}
