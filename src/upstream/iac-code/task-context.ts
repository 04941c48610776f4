import type { AgentPort, CallContext } from '../../core/agent-port.js';
import { deferIterable } from '../../core/iterables.js';
import { overlay } from '../../core/overlay.js';
import { withFields, type SendMessageRequest } from '../../model/index.js';

/** The context of a task as the gateway recorded it for the caller (the registry's), undefined when it knows none. */
export type ContextOf = (taskId: string, ctx: CallContext) => Promise<string | undefined>;

/**
 * The request with its message's context filled in from the record when the message names only its task.
 * A2A lets a client leave the context out of a follow-up (the agent infers it from the task), but iac-code
 * matches a permission answer to its prompt by task and context, and refuses one without a context (-32602
 * "Permission response correlation fields are required.", docs/iac-code.md): the turn would stay paused. A
 * task the record does not know goes as it came, and iac-code answers it; the caller's own context is kept.
 */
export async function withTaskContext(request: SendMessageRequest, contextOf: ContextOf, ctx: CallContext): Promise<SendMessageRequest> {
  const { message } = request;
  if (!namesOnlyItsTask(request)) return request;
  const contextId = await contextOf(message.taskId!, ctx);
  return contextId === undefined ? request : withFields(request, { message: withFields(message, { contextId }) });
}

/** A message that names its task and not its context: the only one whose context is looked up. */
const namesOnlyItsTask = ({ message }: SendMessageRequest): boolean => message.contextId === undefined && message.taskId !== undefined;

/**
 * The agent's port with every follow-up that names only its task given the task's context (withTaskContext),
 * while the agent is iac-code (known by its card, which may only be read once it is up). With
 * `upstream.workspace-root` the workspaces do this themselves (workspaces.ts): they need the context for the folder.
 */
export function namingTaskContexts(inner: AgentPort, contextOf: ContextOf, isIacCode: () => boolean): AgentPort {
  const named = (request: SendMessageRequest, ctx: CallContext): Promise<SendMessageRequest> =>
    isIacCode() ? withTaskContext(request, contextOf, ctx) : Promise.resolve(request);
  return overlay(inner, {
    sendMessage: async (request, ctx) => inner.sendMessage(await named(request, ctx), ctx),
    // Any other message goes as it came, still opened on the first read, without an async step to wait for nothing:
    // every facade turn that names its context (or opens a conversation) comes here.
    sendStreamingMessage: (request, ctx) =>
      namesOnlyItsTask(request)
        ? deferIterable(async () => inner.sendStreamingMessage(await named(request, ctx), ctx))
        : deferIterable(() => inner.sendStreamingMessage(request, ctx)),
  });
}
