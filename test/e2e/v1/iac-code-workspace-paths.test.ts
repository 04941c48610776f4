/**
 * With `upstream.workspace-root`, a 1.0 caller (the official a2a-js 1.x client) is not shown the folder the
 * gateway made for its conversation either: iac-code's words name files relative to the workspace in the
 * streamed chunks (however the path is split between them), the restatement, the task's history and its
 * status, as they do for a Bailian user (test/e2e/facade/iac-code-workspace-paths.test.ts).
 */
import { Role, type Message, type Task } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { cutsOf, speakingScript, type Words } from '../../support/fake-iac-code-workspace-paths.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, collect, connect, sendRequest, textOf, type Payload, type RecordingClient } from '../../support/sdk-v1-client.js';

const ROOT = '/srv/a2a-ws';
const speaking = speakingScript();
let fake: FakeIacCode;
let gateway: TestGateway;
let v1: RecordingClient;

beforeAll(async () => {
  fake = await startFakeIacCode({ script: speaking.script });
  gateway = await startTestGateway({ upstream: { url: fake.url, 'workspace-root': ROOT } });
  v1 = await connect(gateway.url, 'JSONRPC');
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

let conversations = 0;
const nextContext = (): string => `v1-paths-${process.pid}-${++conversations}`;

/** The agent's words as a 1.0 reader joins them: every agent status message's text, in order. */
const streamedWords = (payloads: Payload[]): string =>
  payloads
    .flatMap((payload) => (payload.$case === 'statusUpdate' ? [payload.value.status?.message] : []))
    .filter((message): message is Message => message?.role === Role.ROLE_AGENT)
    .map(textOf)
    .join('|');

/** The agent's words a task holds: its history's agent messages, in order. */
const taskWords = (task: Task): string =>
  task.history
    .filter((message) => message.role === Role.ROLE_AGENT)
    .map(textOf)
    .join('');

/** One turn that says `words` in a new conversation, streamed and sent, and the tasks read back after. */
async function turn(words: (folder: string) => Words) {
  const streamContext = nextContext();
  speaking.say(words(workspaceOf(ROOT, streamContext)));
  const payloads = await collect(v1.client.sendMessageStream(sendRequest('make a vpc', { contextId: streamContext })));
  const sendContext = nextContext();
  speaking.say(words(workspaceOf(ROOT, sendContext)));
  const sent = asTask(await v1.client.sendMessage(sendRequest('make a vpc', { contextId: sendContext })));
  const read = await v1.client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
  const raw = JSON.stringify([payloads, sent, read]);
  return { streamed: streamedWords(payloads).replaceAll('|', ''), sent: taskWords(sent), read: taskWords(read), raw };
}

const PROGRESS = (folder: string) => `正在写入 ${folder}/main.tf。`;
const SENTENCE = (folder: string) => `我已将模板写入 ${folder}/main.tf，请查看。`;

function pathCuts(text: string): string[][] {
  return cutsOf(text, text.indexOf(ROOT), text.indexOf('main.tf') + 'main.tf'.length);
}

describe('the conversation folder in the agent’s words, for a 1.0 caller', () => {
  it('split between chunks at every position, and into single characters: the words read as if the agent had written main.tf', async () => {
    const expected = await turn((folder) => ({
      before: [PROGRESS(folder).replace(`${folder}/`, '')],
      after: [SENTENCE(folder).replace(`${folder}/`, '')],
    }));
    expect(expected.streamed).toBe('正在写入 main.tf。我已将模板写入 main.tf，请查看。我已将模板写入 main.tf，请查看。');
    const count = pathCuts(SENTENCE(workspaceOf(ROOT, 'any'))).length;
    for (let cut = 0; cut < count; cut++) {
      const got = await turn((folder) => ({ before: pathCuts(PROGRESS(folder))[cut]!, after: pathCuts(SENTENCE(folder))[cut]! }));
      expect({ cut, streamed: got.streamed, sent: got.sent, read: got.read }).toEqual({
        cut,
        streamed: expected.streamed,
        sent: expected.sent,
        read: expected.read,
      });
      expect(got.raw).not.toContain(ROOT);
    }
  });

  it('paths outside the conversation’s folder stay as the agent wrote them', async () => {
    const elsewhere = `参考 /etc/hosts、${ROOT}/ 与 ${workspaceOf(ROOT, 'another-conversation')}/main.tf。`;
    const got = await turn(() => ({ before: [elsewhere.slice(0, 12), elsewhere.slice(12)], after: ['完成。'] }));
    expect(got.streamed).toContain(elsewhere);
    expect(got.sent).toContain(elsewhere);
  });
});
