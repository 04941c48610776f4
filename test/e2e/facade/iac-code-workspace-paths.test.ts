/**
 * With `upstream.workspace-root`, iac-code works in the folder the gateway made for the conversation and
 * says so in its words ("我已将模板写入 /srv/…/ctx-4992…/main.tf"). A Bailian user reads the path relative
 * to the workspace ("main.tf"), never the gateway's folders, in message/send and message/stream alike,
 * however the path is split between the text chunks iac-code streams; paths elsewhere stay as written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { cutsOf, speakingScript, type Words } from '../../support/fake-iac-code-workspace-paths.js';
import type { RunningGateway } from '../../../src/app.js';

const ROOT = '/srv/a2a-ws';
const speaking = speakingScript();
let fake: FakeIacCode;
let gateway: RunningGateway;

beforeAll(async () => {
  fake = await startFakeIacCode({ script: speaking.script });
  gateway = await startFacadeGateway({ upstream: { url: fake.url, 'workspace-root': ROOT } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

let conversations = 0;
const nextContext = (): string => `paths-${process.pid}-${++conversations}`;

/** What a Bailian user reads of one turn that says `words` in a new conversation, by message/send and by message/stream. */
async function read(words: (folder: string) => Words): Promise<{ sent: string; streamed: string; raw: string }> {
  const sendContext = nextContext();
  speaking.say(words(workspaceOf(ROOT, sendContext)));
  const send = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId: sendContext }) });
  const streamContext = nextContext();
  speaking.say(words(workspaceOf(ROOT, streamContext)));
  const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
    message: userMessage({ text: 'make a vpc', contextId: streamContext }),
  });
  const events = results(await stream.rest());
  return { sent: sentText(send.body.result), streamed: streamedText(events), raw: JSON.stringify([send.body, events]) };
}

const SENTENCE = (folder: string) => `我已将模板写入 ${folder}/main.tf，请查看。`;
const RELATIVE_SENTENCE = '我已将模板写入 main.tf，请查看。';
const PROGRESS = (folder: string) => `正在写入 ${folder}/main.tf。`;
const RELATIVE_PROGRESS = '正在写入 main.tf。';

/** Every cut of `text` from just before its path to just after it (fake-iac-code-workspace-paths.ts). */
function pathCuts(text: string): string[][] {
  const start = text.indexOf(ROOT);
  return cutsOf(text, start, text.indexOf('main.tf') + 'main.tf'.length);
}

describe('the conversation folder in the agent’s words, for a Bailian user', () => {
  it('whole in one chunk, before and after the tool call and in the restatement: the user reads main.tf', async () => {
    const { sent, streamed, raw } = await read((folder) => ({ before: [PROGRESS(folder)], after: [SENTENCE(folder)] }));
    for (const text of [sent, streamed]) {
      expect(text).toContain(RELATIVE_PROGRESS);
      expect(text).toContain(RELATIVE_SENTENCE);
    }
    expect(raw).not.toContain(ROOT);
    expect(raw).not.toContain('ctx-');
  });

  it('split between chunks at every position, and into single characters: the same reply as if the agent had written main.tf', async () => {
    const expected = await read(() => ({ before: [RELATIVE_PROGRESS], after: [RELATIVE_SENTENCE] }));
    expect(expected.streamed).toBe(expected.sent);
    const count = pathCuts(SENTENCE(workspaceOf(ROOT, 'any'))).length;
    for (let cut = 0; cut < count; cut++) {
      const { sent, streamed, raw } = await read((folder) => ({
        before: pathCuts(PROGRESS(folder))[cut]!,
        after: pathCuts(SENTENCE(folder))[cut]!,
      }));
      expect({ cut, sent }).toEqual({ cut, sent: expected.sent });
      expect({ cut, streamed }).toEqual({ cut, streamed: expected.streamed });
      expect(raw).not.toContain(ROOT);
    }
  });

  it('the folder alone reads ./, and a message may end with it before the tool call', async () => {
    const { sent, streamed } = await read((folder) => ({
      before: ['我在 ', folder.slice(0, 9), `${folder.slice(9)}/`],
      after: [`工作目录是 ${folder}。`],
    }));
    for (const text of [sent, streamed]) {
      expect(text).toContain('我在 ./');
      expect(text).toContain('工作目录是 ./。');
      expect(text).not.toContain(ROOT);
    }
  });

  it("a failure's reason names the file relative to the workspace too", async () => {
    const { sent, streamed } = await read((folder) => ({
      before: ['正在校验 ', `${folder.slice(0, 20)}`, `${folder.slice(20)}/main.tf`],
      error: `Model request failed: cannot parse ${folder}/main.tf`,
    }));
    for (const text of [sent, streamed]) {
      expect(text).toContain('正在校验 main.tf');
      expect(text).toContain('Model request failed: cannot parse main.tf');
      expect(text).not.toContain(ROOT);
    }
  });

  it('a stream that breaks off while a chunk holds the start of the folder: the rest, read from the task, still reads main.tf', async () => {
    const words = (folder: string): Words => ({
      before: ['正在写入 ', folder.slice(0, 10), `${folder.slice(10)}/main.tf。`],
      after: [SENTENCE(folder)],
    });
    const expected = (await read(() => ({ before: [RELATIVE_PROGRESS], after: [RELATIVE_SENTENCE] }))).streamed;
    // The task event, SUBMITTED and WORKING come first: the stream ends before, between and after the chunks.
    for (const after of [4, 5, 6, 7]) {
      const contextId = nextContext();
      speaking.say(words(workspaceOf(ROOT, contextId)));
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
        message: userMessage({ text: `make a vpc [fault:end-mid-stream after=${after}]`, contextId }),
      });
      const events = results(await stream.rest());
      expect({ after, text: streamedText(events) }).toEqual({ after, text: expected });
    }
  });

  it('a message that ends on a possible start of the folder, then a break: the rest is read from where the user left off', async () => {
    // `/s` could begin the folder: it is held until the tool call ends the message, then told on its own.
    const words = (): Words => ({ before: ['第一步 /s'], after: ['第二句。', '第三句。'] });
    const expected = await read(words);
    expect(expected.streamed).toBe(expected.sent);
    // The task event, SUBMITTED, WORKING, the chunk, then usage (which ends the message) and the tool's frames.
    // Without `gap` the turn runs on (the task is read); with it, the subscription's snapshot holds the rest.
    const readBack: unknown[] = [];
    const wanted: unknown[] = [];
    for (const after of [4, 5, 6, 7]) {
      for (const gap of [undefined, 0, 2]) {
        const fault = { name: 'end-mid-stream' as const, after, ...(gap === undefined ? {} : { gap }) };
        fake.injectFault(fault, { method: 'SendStreamingMessage' });
        fake.injectFault(fault, { method: 'SendStreamingMessage' });
        // Both turns broke off and were followed again: subscribed to while the turn waits, else read.
        const followedBy = gap === undefined ? 'GetTask' : 'SubscribeToTask';
        const followedBefore = fake.rpcRequests(followedBy).length;
        const { sent, streamed } = await read(words);
        readBack.push({ after, gap, sent, streamed });
        wanted.push({ after, gap, sent: expected.sent, streamed: expected.streamed });
        expect(fake.rpcRequests(followedBy).length - followedBefore).toBeGreaterThanOrEqual(2);
      }
    }
    expect(readBack).toEqual(wanted);
  });

  it('paths outside the conversation’s folder stay as the agent wrote them', async () => {
    const other = workspaceOf(ROOT, 'another-conversation');
    const elsewhere = `参考 /etc/hosts、${ROOT}/ 与 ${other}/main.tf。`;
    const { sent, streamed } = await read(() => ({ before: [elsewhere.slice(0, 12), elsewhere.slice(12)], after: ['完成。'] }));
    for (const text of [sent, streamed]) expect(text).toContain(elsewhere);
  });
});
