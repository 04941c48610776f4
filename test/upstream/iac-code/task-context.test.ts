import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../../src/core/agent-port.js';
import { namingTaskContexts } from '../../../src/upstream/iac-code/task-context.js';
import { collect } from '../../support/collect.js';
import type { SendMessageRequest } from '../../../src/model/index.js';
import { ctxOf, finishedTask, recordingUpstream, stubUpstream, userMessage } from '../../support/gateway-stubs.js';

/** The registry as the decorator reads it: `known` is p's task in `ctx-known`, nobody else's. */
const contextOf = async (taskId: string, ctx: CallContext) => (taskId === 'known' && ctx.principal === 'p' ? 'ctx-known' : undefined);

describe("namingTaskContexts: a follow-up naming only its task is sent with the task's context to iac-code", () => {
  it("fills in the recorded context for send and stream, as iac-code's permission answers need it", async () => {
    const { port, sent } = recordingUpstream((inner) => namingTaskContexts(inner, contextOf, () => true));
    await port.sendMessage({ message: userMessage({ taskId: 'known' }) }, ctxOf('p'));
    await collect(port.sendStreamingMessage({ message: userMessage({ taskId: 'known' }) }, ctxOf('p')));
    expect(sent.map(({ message }) => [message.taskId, message.contextId])).toEqual([
      ['known', 'ctx-known'],
      ['known', 'ctx-known'],
    ]);
  });

  it("keeps the caller's own context, a new conversation's missing one, and a task the record does not know (or not as this caller's) as they came", async () => {
    const { port, sent } = recordingUpstream((inner) => namingTaskContexts(inner, contextOf, () => true));
    await port.sendMessage({ message: userMessage({ taskId: 'known', contextId: 'theirs' }) }, ctxOf('p'));
    await port.sendMessage({ message: userMessage() }, ctxOf('p'));
    await port.sendMessage({ message: userMessage({ taskId: 'unknown' }) }, ctxOf('p'));
    await collect(port.sendStreamingMessage({ message: userMessage({ taskId: 'known' }) }, ctxOf('q')));
    expect(sent.map(({ message }) => [message.taskId, message.contextId])).toEqual([
      ['known', 'theirs'],
      [undefined, undefined],
      ['unknown', undefined],
      ['known', undefined],
    ]);
  });

  it("streams a message naming its context, or no task, as it came, asking the agent only on the stream's first read", async () => {
    const asked: SendMessageRequest[] = [];
    // Asked at the call, as a port with work of its own before its first read may be: the decorator must not ask it sooner.
    const inner = stubUpstream({
      sendStreamingMessage: (request) => {
        asked.push(request);
        return (async function* () {
          yield { task: finishedTask('t-1', request.message.contextId ?? 'c') };
        })();
      },
    });
    const port = namingTaskContexts(inner, contextOf, () => true);
    const own = port.sendStreamingMessage({ message: userMessage({ taskId: 'known', contextId: 'theirs' }) }, ctxOf('p'));
    const opening = port.sendStreamingMessage({ message: userMessage() }, ctxOf('p'));
    const left = port.sendStreamingMessage({ message: userMessage({ contextId: 'theirs' }) }, ctxOf('p'));
    expect(asked).toEqual([]);
    await left[Symbol.asyncIterator]().return?.();
    expect(await collect(own)).toHaveLength(1);
    expect(await collect(opening)).toHaveLength(1);
    expect(asked.map(({ message }) => [message.taskId, message.contextId])).toEqual([
      ['known', 'theirs'],
      [undefined, undefined],
    ]);
  });

  it('leaves an agent that is not iac-code alone (and reads no record for it)', async () => {
    let reads = 0;
    const counted = async (taskId: string, ctx: CallContext) => (reads++, contextOf(taskId, ctx));
    const { port, sent } = recordingUpstream((inner) => namingTaskContexts(inner, counted, () => false));
    await collect(port.sendStreamingMessage({ message: userMessage({ taskId: 'known' }) }, ctxOf('p')));
    expect([sent[0]!.message.contextId, reads]).toEqual([undefined, 0]);
  });
});
