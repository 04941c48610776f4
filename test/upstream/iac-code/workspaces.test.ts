import { describe, expect, it } from 'vitest';
import type { SendMessageRequest } from '../../../src/model/index.js';
import { givingWorkspaces, workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { ctxOf, finishedTask, stubUpstream, userMessage } from '../../support/gateway-stubs.js';

const ROOT = '/srv/ws';

/** The port with workspaces over a stub that records what it was sent; `known` is the one task the registry can place. */
function recording() {
  const sent: SendMessageRequest[] = [];
  const inner = stubUpstream({
    sendMessage: async (request) => {
      sent.push(request);
      return { task: finishedTask('t-1', request.message.contextId ?? 'ctx-unknown') };
    },
  });
  const port = givingWorkspaces(inner, { root: ROOT, contextOf: async (taskId) => (taskId === 'known' ? 'ctx-known' : undefined) });
  return { port, sent };
}

const cwdOf = (metadata: Record<string, unknown> | undefined) => (metadata?.iac_code as { cwd?: string } | undefined)?.cwd;

describe("givingWorkspaces and the request-level metadata iac-code reads instead of the message's", () => {
  it("names the conversation's folder in both, whatever folder the caller put in either", async () => {
    const { port, sent } = recording();
    await port.sendMessage(
      { message: userMessage({ contextId: 'c1', metadata: { iac_code: { cwd: '/a' } } }), metadata: { iac_code: { cwd: '/b' }, trace: 1 } },
      ctxOf('p'),
    );
    await port.sendMessage({ message: userMessage({ taskId: 'known' }), metadata: { trace: 2 } }, ctxOf('p'));
    expect(sent.map((request) => [cwdOf(request.message.metadata), cwdOf(request.metadata), request.metadata?.trace])).toEqual([
      [workspaceOf(ROOT, 'c1'), workspaceOf(ROOT, 'c1'), 1],
      [workspaceOf(ROOT, 'ctx-known'), workspaceOf(ROOT, 'ctx-known'), 2],
    ]);
  });

  it("a task it cannot place keeps no folder of the caller's in either; empty request metadata stays as it is", async () => {
    const { port, sent } = recording();
    await port.sendMessage(
      { message: userMessage({ taskId: 'unknown', metadata: { iac_code: { cwd: '/a', keep: true } } }), metadata: { iac_code: { cwd: '/b' } } },
      ctxOf('p'),
    );
    await port.sendMessage({ message: userMessage({ contextId: 'c2' }), metadata: {} }, ctxOf('p'));
    expect(sent[0]!.message.metadata).toEqual({ iac_code: { keep: true } });
    expect(sent[0]!.metadata).toEqual({ iac_code: {} });
    expect(sent[1]!.metadata).toEqual({});
    expect(cwdOf(sent[1]!.message.metadata)).toBe(workspaceOf(ROOT, 'c2'));
  });
});
