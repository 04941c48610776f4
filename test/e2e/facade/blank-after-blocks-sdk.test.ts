/**
 * A real a2a-js 1.x agent ends a message or an artifact with a Markdown table or list and then says a sentence of
 * its own (its next artifact, its closing status text). Bailian renders the reply's Markdown, where a sentence on
 * the line right after a table's row is another row, and right after a list item part of that item. A Bailian user
 * (the official 0.2.5 client, `bailian` profile) reads a blank line between them, in message/stream, message/send and
 * tasks/get: the table or the list, then the sentence as a paragraph of its own.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, sdkParams, sentText, startFacadeGateway, streamedText } from '../../support/facade.js';
import { textPart, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from './script-player-agent.js';

const TABLE = '| 名称 | 状态 |\n|---|---|\n| vpc-1 | 可用 |';
const LIST = '- 第一步\n- 第二步';
const DONE = '全部完成。';

/** The blocks a line-based Markdown reader finds: a line right after a row or an item is that block's, unless blank. */
function blocks(text: string): string[] {
  const kinds: string[] = [];
  let last = '';
  for (const line of text.split('\n')) {
    const row = /^\s*\|/u.test(line);
    const item = /^\s*(?:[-*+]|\d+[.)])\s/u.test(line);
    const kind = line.trim() === '' ? '' : row || last === 'table' ? 'table' : item || last === 'list' ? 'list' : 'paragraph';
    if (kind !== '' && kind !== last) kinds.push(kind);
    last = kind;
  }
  return kinds;
}

let agent: RunningTestAgent;
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startScriptPlayer({
    // Two artifacts, a table and a list, then the closing status text.
    表格: {
      steps: [
        { status: TaskState.TASK_STATE_WORKING },
        { artifact: 'a1', parts: [textPart(TABLE)], append: false, last: true },
        { artifact: 'a2', parts: [textPart(LIST)], append: false, last: true },
        { status: TaskState.TASK_STATE_COMPLETED, said: DONE },
      ],
    },
    // A working message that ends its list with a line break of its own, then the closing status text.
    列表: {
      steps: [
        { status: TaskState.TASK_STATE_WORKING, said: `步骤如下：\n${LIST}\n` },
        { status: TaskState.TASK_STATE_COMPLETED, said: DONE },
      ],
    },
  });
  gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  client = new A2AClient(gateway.url);
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

describe('a sentence after a table or a list stands after a blank line', () => {
  it.each([
    ['表格', `${TABLE}\n\n${LIST}\n\n${DONE}`, ['table', 'list', 'paragraph']],
    ['列表', `步骤如下：\n${LIST}\n\n${DONE}`, ['paragraph', 'list', 'paragraph']],
  ])('%s: message/stream, message/send and tasks/get', async (prompt, read, shape) => {
    const events = await collect(client.sendMessageStream(sdkParams(prompt)));
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(streamedText(events)).toBe(read);
    expect(blocks(streamedText(events))).toEqual(shape);

    const { result: sent }: any = await client.sendMessage(sdkParams(prompt));
    expect(sentText(sent)).toBe(read);

    for (const id of [events[0].id, sent.id]) {
      const { result: got }: any = await client.getTask({ id });
      expect(sentText(got)).toBe(read);
    }
  });
});
