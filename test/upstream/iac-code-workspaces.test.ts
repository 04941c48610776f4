import { describe, expect, it } from 'vitest';
import type { AgentPort, CallContext } from '../../src/core/agent-port.js';
import type { Message, SendMessageRequest, Task } from '../../src/model/index.js';
import type { WorkspaceActivity } from '../../src/upstream/iac-code/workspace-activity.js';
import { givingWorkspaces, workspaceOf } from '../../src/upstream/iac-code/workspaces.js';
import { collect } from '../support/collect.js';

const ROOT = '/srv/w';
const ctx = { principal: 'p', signal: new AbortController().signal } as CallContext;

describe('workspaceOf', () => {
  it('keeps every context id, dot segments and separators included, one folder below the root', () => {
    for (const contextId of ['..', '.', 'a/../../etc', 'ctx-1']) {
      const folder = workspaceOf(ROOT, contextId);
      expect(folder).toMatch(/^\/srv\/w\/ctx-[0-9a-f]{32}$/);
    }
    expect(workspaceOf(ROOT, 'a')).toBe(workspaceOf(ROOT, 'a'));
    expect(workspaceOf(ROOT, 'a')).not.toBe(workspaceOf(ROOT, 'b'));
  });
});

describe('givingWorkspaces', () => {
  const user = (metadata?: Message['metadata']): Message => ({
    messageId: 'm',
    role: 'ROLE_USER',
    parts: [{ text: 'hi' }],
    ...(metadata ? { metadata } : {}),
  });

  it("takes out of an echoed history only the folder it named, and keeps the caller's other metadata", async () => {
    const ours = workspaceOf(ROOT, 'c1');
    const task: Task = {
      id: 't',
      contextId: 'c1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED' },
      history: [
        user({ iac_code: { cwd: ours, user_id: 'u-1' }, chatId: 'x' }),
        user({ iac_code: { cwd: ours } }),
        user({ iac_code: { cwd: '/elsewhere' } }),
        user(),
      ],
    };
    const port = givingWorkspaces({ getTask: async () => task } as unknown as AgentPort, { root: ROOT, contextOf: async () => undefined });
    const seen = await port.getTask({ id: 't' }, ctx);
    expect(seen.history!.map((message) => message.metadata)).toEqual([
      { iac_code: { user_id: 'u-1' }, chatId: 'x' },
      undefined,
      { iac_code: { cwd: '/elsewhere' } },
      undefined,
    ]);
  });

  it('names the folder over what the caller set, keeps its other iac_code keys, and sends a task it cannot place with no folder at all', async () => {
    const sent: SendMessageRequest[] = [];
    const inner = {
      sendMessage: async (request: SendMessageRequest) => {
        sent.push(request);
        return { message: user() };
      },
    } as unknown as AgentPort;
    const port = givingWorkspaces(inner, { root: ROOT, contextOf: async (taskId) => (taskId === 'known' ? 'c9' : undefined) });
    await port.sendMessage({ message: { ...user({ iac_code: { cwd: '/mine', thinking: { enabled: true } } }), contextId: 'c1' } }, ctx);
    await port.sendMessage({ message: { ...user(), taskId: 'known' } }, ctx);
    await port.sendMessage({ message: { ...user(), taskId: 'unknown' } }, ctx);
    await port.sendMessage({ message: { ...user({ iac_code: { cwd: '/theirs', user_id: 'u' } }), taskId: 'unknown' } }, ctx);
    expect(sent[0]!.message.metadata).toEqual({ iac_code: { cwd: workspaceOf(ROOT, 'c1'), thinking: { enabled: true } } });
    expect(sent[1]!.message).toMatchObject({ contextId: 'c9', metadata: { iac_code: { cwd: workspaceOf(ROOT, 'c9') } } });
    expect(sent[2]!.message.metadata).toBeUndefined();
    expect(sent[2]!.message.contextId).toBeUndefined();
    expect(sent[3]!.message.metadata).toEqual({ iac_code: { user_id: 'u' } });
  });

  it("with pruning, notes each turn's start with its folder before the turn goes on, until the turn ends, blocking or streamed", async () => {
    const log: string[] = [];
    const activity: WorkspaceActivity = {
      async begin(folder) {
        log.push(`begin ${folder}`);
        return () => log.push(`end ${folder}`);
      },
      busy: () => false,
    };
    const inner = {
      sendMessage: async (request: SendMessageRequest) => {
        log.push(`send ${request.message.contextId}`);
        return { message: user() };
      },
      sendStreamingMessage: async function* (request: SendMessageRequest) {
        log.push(`stream ${request.message.contextId}`);
        yield { message: user() };
        log.push('streamed');
      },
    } as unknown as AgentPort;
    const port = givingWorkspaces(inner, { root: ROOT, contextOf: async () => undefined, activity });
    await port.sendMessage({ message: { ...user(), contextId: 'c1' } }, ctx);
    await collect(port.sendStreamingMessage({ message: { ...user(), contextId: 'c2' } }, ctx));
    // A turn the gateway cannot place names no folder of ours, and notes none.
    await port.sendMessage({ message: { ...user(), taskId: 'unknown' } }, ctx);
    expect(log).toEqual([
      `begin ${workspaceOf(ROOT, 'c1')}`,
      'send c1',
      `end ${workspaceOf(ROOT, 'c1')}`,
      `begin ${workspaceOf(ROOT, 'c2')}`,
      'stream c2',
      'streamed',
      `end ${workspaceOf(ROOT, 'c2')}`,
      'send undefined',
    ]);
  });
});
