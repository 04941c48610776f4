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

describe('givingWorkspaces and the source paths newer iac-code servers name', () => {
  const file = `${workspaceOf(ROOT, 'c1')}/main.tf`;
  const artifact = (sourcePath: string) => ({
    artifactId: 'a-1',
    name: 'main.tf',
    metadata: { sha256: 'x', sourcePath },
    parts: [{ url: 'iac-code-artifact://a-1/main.tf', metadata: { sourcePath } }, { text: 'note' }],
  });
  const inner = stubUpstream({
    async *sendStreamingMessage(request) {
      yield { artifactUpdate: { taskId: 't-1', contextId: request.message.contextId!, artifact: artifact(file) } };
      yield { artifactUpdate: { taskId: 't-1', contextId: request.message.contextId!, artifact: artifact('/opt/templates/base.tf') } };
    },
    getTask: async () => ({ ...finishedTask('t-1', 'c1'), artifacts: [artifact(file)] }),
  });
  // The root as an operator may write it, with a trailing slash.
  const port = givingWorkspaces(inner, { root: `${ROOT}/`, contextOf: async () => undefined });

  it("takes out a file path inside a conversation's folder, from the artifact and its parts, streamed or in a task", async () => {
    const events = [];
    for await (const event of port.sendStreamingMessage({ message: userMessage({ contextId: 'c1' }) }, ctxOf('p'))) events.push(event);
    const [inFolder, elsewhere] = events.map((event) => ('artifactUpdate' in event ? event.artifactUpdate.artifact : undefined));
    expect(inFolder).toEqual({
      artifactId: 'a-1',
      name: 'main.tf',
      metadata: { sha256: 'x' },
      parts: [{ url: 'iac-code-artifact://a-1/main.tf' }, { text: 'note' }],
    });
    expect(JSON.stringify(elsewhere)).toContain('/opt/templates/base.tf');
    const task = await port.getTask({ id: 't-1' }, ctxOf('p'));
    expect(JSON.stringify(task)).not.toContain(ROOT);
    expect(task.artifacts?.[0]?.metadata).toEqual({ sha256: 'x' });
  });
});
