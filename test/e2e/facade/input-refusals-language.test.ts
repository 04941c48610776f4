/**
 * The facade's refusals of a message it cannot pass on (src/surfaces/v025/input.ts) are words a Bailian user reads,
 * as the gateway's other words are: in the language of the message, or, for one without words (a photo whose image
 * cannot reach the agent), of its conversation, noted from its earlier turns. Under the same JSON-RPC code, on
 * message/send and message/stream alike; an English turn reads them as before. Read with the official a2a-js 0.2.5
 * client in front of a real a2a-js 1.x agent whose card takes PNG and JPEG images.
 */
import { randomUUID } from 'node:crypto';
import { A2AClient } from 'a2a-sdk-025/client';
import type { MessageSendParams } from 'a2a-sdk-025';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, sdkParams, sentText, startFacadeGateway } from '../../support/facade.js';
import { startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';

// A GIF header: a type the agent's card does not take, so the image never reaches it.
const GIF = Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00;', 'latin1').toString('base64');
// A URL on a private address: never fetched (no `allow-private`), so it never reaches the agent either.
const PRIVATE_URL = 'http://127.0.0.1:9/photo.jpg';

const EMPTY = {
  en: 'Invalid params: message.parts: the message text is empty',
  zh: '参数无效：message.parts：消息内容为空',
  ja: 'パラメーターが無効です：message.parts：メッセージのテキストが空です',
};
const NO_IMAGE_REACHES = {
  en: `${EMPTY.en}, and none of its images reaches the agent (its card takes none of their types, or their URL could not be fetched)`,
  zh: `${EMPTY.zh}，附带的图片也都无法交给智能体（智能体不接受这些图片的类型，或图片链接无法获取）`,
  ja: `${EMPTY.ja}。添付された画像もエージェントに渡せません（エージェントが対応していない画像形式か、画像のURLを取得できませんでした）`,
};
const TEXT_PARTS_ONLY = { en: 'Only text parts are supported (kind: "text")', zh: '仅支持文本内容（kind: "text"）' };
const TEXT_INPUT_ONLY = { en: 'A2A server currently accepts text input only.', zh: '智能体目前仅接受文字输入。' };

/** A Bailian message of `text`, with `images` in its metadata (Bailian's protocol extension), in conversation `contextId`. */
const withImages = (text: string, contextId: string, images: Array<{ type: string; value: string }>): MessageSendParams => ({
  message: { kind: 'message', role: 'user', messageId: randomUUID(), contextId, parts: [{ kind: 'text', text }], metadata: { images } },
});

/** A message of `text` and a file part, as a caller that is not Bailian may send. */
const withFile = (text: string): MessageSendParams => ({
  message: {
    kind: 'message',
    role: 'user',
    messageId: randomUUID(),
    parts: [
      { kind: 'text', text },
      { kind: 'file', file: { uri: 'https://files.example.com/diagram.png', mimeType: 'image/png' } },
    ],
  },
});

/** What the 0.2.5 client reports of a refusal: message/send's error, and message/stream's (thrown, code appended). */
async function refusedBothWays(client: A2AClient, params: () => MessageSendParams): Promise<{ sent: unknown; streamed: string }> {
  const sent: any = await client.sendMessage(params());
  const streamed = await collect(client.sendMessageStream(params())).then(
    () => 'no refusal',
    (error: Error) => error.message,
  );
  return { sent: sent.error, streamed };
}

let agent: RunningScriptedAgent;
beforeAll(async () => {
  agent = await startScriptedAgent();
});
afterAll(async () => {
  await agent?.close();
});

describe('a message with neither words nor an image that reaches the agent', () => {
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const conversations = { zh: '帮我部署一个网站', ja: 'ウェブサイトをデプロイしてください', en: 'Deploy a website for me' } as const;

  for (const language of ['zh', 'ja', 'en'] as const) {
    it(`${language}: is refused in the conversation's language, on message/send and message/stream`, async () => {
      const contextId = randomUUID();
      // The conversation's first turn says its language; the refused messages say none.
      const { result: first }: any = await client.sendMessage(sdkParams(conversations[language], { contextId }));
      expect(sentText(first)).toContain('Unknown script');
      const cases = [
        { params: () => sdkParams('  ', { contextId }), told: EMPTY[language] },
        { params: () => withImages('', contextId, [{ type: 'base64', value: GIF }]), told: NO_IMAGE_REACHES[language] },
        // Refused once the fetch is given up, after message/stream began: still before its first event.
        { params: () => withImages(' ', contextId, [{ type: 'url', value: PRIVATE_URL }]), told: NO_IMAGE_REACHES[language] },
      ];
      for (const { params, told } of cases) {
        const { sent, streamed } = await refusedBothWays(client, params);
        expect(sent, told).toEqual({ code: -32602, message: told });
        expect(streamed, told).toContain(`${told} (Code: -32602)`);
      }
    });
  }
});

describe('a non-text part from a caller that writes Chinese', () => {
  it("non-text-parts: error refuses it in the message's language, under -32005", async () => {
    const gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    try {
      const client = new A2AClient(gateway.url);
      for (const [text, told] of [
        ['看看这张架构图有什么问题', TEXT_PARTS_ONLY.zh],
        ['What is wrong with this diagram?', TEXT_PARTS_ONLY.en],
      ] as const) {
        const { sent, streamed } = await refusedBothWays(client, () => withFile(text));
        expect(sent).toEqual({ code: -32005, message: told });
        expect(streamed).toContain(`${told} (Code: -32005)`);
      }
    } finally {
      await gateway.close();
    }
  });

  it("non-text-parts: fail-task fails the task with the reason in the message's language", async () => {
    const gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'non-text-parts': 'fail-task' } });
    try {
      const client = new A2AClient(gateway.url);
      for (const [text, told] of [
        ['看看这张架构图有什么问题', TEXT_INPUT_ONLY.zh],
        ['What is wrong with this diagram?', TEXT_INPUT_ONLY.en],
      ] as const) {
        const { result: sent }: any = await client.sendMessage(withFile(text));
        expect(sent.status.state).toBe('failed');
        expect(sentText(sent)).toBe(told);
        const events = await collect(client.sendMessageStream(withFile(text)));
        expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
        const streamed = events.flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts.map((part: any) => part.text) : []));
        expect(streamed.join('')).toBe(told);
      }
    } finally {
      await gateway.close();
    }
  });
});
