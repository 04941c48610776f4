/**
 * One workspace per conversation (`upstream.workspace-root`) in front of the fake iac-code, which, as the
 * real one does, binds a context to the folder of its first turn and fails a turn that names another.
 * Bailian users (one key, many conversations) each get a folder of their own, kept over their turns; a
 * 1.0 caller's own folder is replaced, its follow-up by task id alone finds the folder too; nobody is
 * shown the folder; without a root the gateway names none, as before.
 */
import { describe, expect, it } from 'vitest';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { turnMetadata, WRONG_WORKSPACE } from '../../support/fake-iac-code-turn-settings.js';
import type { FakeIacCode } from '../../support/fake-iac-code.js';
import { fakeIacCodeBehindGateway, openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';
import { userMessage as v1Message } from '../../support/v1-message.js';

const ROOT = '/srv/a2a-workspaces';
const REPLY = 'Hello world.';

/** The turns the agent received, in order. */
const turns = (fake: FakeIacCode) =>
  fake.rpcRequests().filter((request) => request.rpcMethod === 'SendMessage' || request.rpcMethod === 'SendStreamingMessage');

/** The context and the folder of each turn the agent received since the `from`th, read as iac-code reads them. */
function foldersByContext(fake: FakeIacCode, from: number): Array<[string, string | undefined]> {
  return turns(fake)
    .slice(from)
    .map((request) => (request.body as any).params)
    .map((params) => [params.message.contextId, (turnMetadata(params) as any)?.iac_code?.cwd]);
}

const agentCalls = (fake: FakeIacCode) => turns(fake).length;

const v1 = (url: string, method: string, params: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((response) => response.json() as Promise<{ result?: any; error?: any }>);

describe('upstream.workspace-root: a workspace per conversation', () => {
  const running = fakeIacCodeBehindGateway({ 'workspace-root': ROOT });

  it('two Bailian conversations under one key: each its own folder, the same over its turns, and every turn answered', async () => {
    const before = agentCalls(running.fake);
    for (const contextId of ['conversation-a', 'conversation-b']) {
      const first = await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId }) });
      expect(sentText(first.body.result)).toContain(REPLY);
      const stream = await openStream(`${running.gateway.url}/stream`, 'message/stream', {
        message: userMessage({ text: 'and a vswitch', contextId }),
      });
      const events = results(await stream.rest());
      expect(streamedText(events)).toContain(REPLY);
      expect(streamedText(events)).not.toContain(WRONG_WORKSPACE);
      expect(JSON.stringify(first.body)).not.toContain(ROOT);
      expect(JSON.stringify(events)).not.toContain(ROOT);
    }
    expect(foldersByContext(running.fake, before)).toEqual([
      ['conversation-a', workspaceOf(ROOT, 'conversation-a')],
      ['conversation-a', workspaceOf(ROOT, 'conversation-a')],
      ['conversation-b', workspaceOf(ROOT, 'conversation-b')],
      ['conversation-b', workspaceOf(ROOT, 'conversation-b')],
    ]);
    expect(workspaceOf(ROOT, 'conversation-a')).not.toBe(workspaceOf(ROOT, 'conversation-b'));
  });

  it('a first message without a context gets one at once, and its folder; the conversation goes on in it', async () => {
    const before = agentCalls(running.fake);
    const first = await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc' }) });
    const contextId = first.body.result.contextId as string;
    const next = await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: 'and a vswitch', contextId }) });
    expect(sentText(next.body.result)).toContain(REPLY);
    expect(foldersByContext(running.fake, before)).toEqual([
      [contextId, workspaceOf(ROOT, contextId)],
      [contextId, workspaceOf(ROOT, contextId)],
    ]);
  });

  it("a 1.0 caller's own folder is replaced, a follow-up by task id alone finds the conversation's, and the echo shows none", async () => {
    const before = agentCalls(running.fake);
    const message = v1Message('make a vpc', { contextId: 'caller-ctx', metadata: { iac_code: { cwd: '/home/someone-else' } } });
    // Streamed: iac-code's first frame echoes the turn's metadata in the task's history, and the gateway takes the folder out again.
    const streamed = await fetch(running.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message } }),
    }).then((response) => response.text());
    expect(streamed).toContain('TASK_STATE_INPUT_REQUIRED');
    expect(streamed).not.toContain(ROOT);
    const taskId = /"task":\{"id":"([^"]+)"/.exec(streamed)![1]!;
    const next = await v1(running.gateway.url, 'SendMessage', { message: v1Message('go on', { taskId }) });
    expect(next.error).toBeUndefined();
    expect(JSON.stringify(next.result)).not.toContain(WRONG_WORKSPACE);
    expect(next.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(foldersByContext(running.fake, before)).toEqual([
      ['caller-ctx', workspaceOf(ROOT, 'caller-ctx')],
      ['caller-ctx', workspaceOf(ROOT, 'caller-ctx')],
    ]);
  });

  it("a 1.0 caller's request-level metadata, which iac-code reads instead of the message's, names the conversation's folder too", async () => {
    const before = agentCalls(running.fake);
    const own = { metadata: { iac_code: { cwd: '/home/someone-else' }, trace: 't-1' } };
    const plain = { metadata: { trace: 't-2' } };
    for (const [contextId, extra] of [
      ['request-own', own],
      ['request-plain', plain],
    ] as const) {
      const answer = await v1(running.gateway.url, 'SendMessage', { message: v1Message('make a vpc', { contextId }), ...extra });
      expect(answer.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(JSON.stringify(answer.result)).not.toContain(ROOT);
    }
    expect(foldersByContext(running.fake, before)).toEqual([
      ['request-own', workspaceOf(ROOT, 'request-own')],
      ['request-plain', workspaceOf(ROOT, 'request-plain')],
    ]);
    const sent = turns(running.fake)
      .slice(before)
      .map((request) => (request.body as any).params.metadata);
    expect(sent).toEqual([expect.objectContaining({ trace: 't-1' }), expect.objectContaining({ trace: 't-2' })]);
  });
});

describe('without upstream.workspace-root', () => {
  const running = fakeIacCodeBehindGateway();

  it("names no folder, and passes a 1.0 caller's own on", async () => {
    const before = agentCalls(running.fake);
    await rpc(running.gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId: 'plain-ctx' }) });
    const message = v1Message('make a vpc', { contextId: 'own-ctx', metadata: { iac_code: { cwd: '/home/me' } } });
    await v1(running.gateway.url, 'SendMessage', { message });
    expect(foldersByContext(running.fake, before)).toEqual([
      ['plain-ctx', undefined],
      ['own-ctx', '/home/me'],
    ]);
  });
});
