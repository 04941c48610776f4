/**
 * A file a Bailian user cannot be shown (an image's bytes) is told by its name, type and size: the size in the
 * user's own language, as the rest of the facade's words are. In front of a real a2a-js 1.x agent (its `files`
 * script returns a PNG's bytes among other parts), a Chinese and a Japanese user read the same words in
 * message/send, message/stream and tasks/get; an English one keeps "bytes". A Japanese request of katakana words
 * (`データのファイル`) is read as Japanese.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const withKey = { 'X-API-KEY': API_KEY };

const USERS = [
  { language: 'Chinese', text: 'files 请把报告文件发给我', described: 'diagram.png (image/png, 8 字节)' },
  { language: 'Japanese', text: 'files レポートのファイルを送ってください', described: 'diagram.png (image/png, 8 バイト)' },
  // Katakana words and one particle: Japanese, though it has a single hiragana (turn-language.ts).
  { language: 'Japanese in katakana words', text: 'files データのファイル', described: 'diagram.png (image/png, 8 バイト)' },
  { language: 'English', text: 'files please send me the report', described: 'diagram.png (image/png, 8 bytes)' },
];

describe('the size of a file the user cannot be shown, in the user’s language', () => {
  let agent: RunningScriptedAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  for (const user of USERS) {
    it(`${user.language}: message/send, message/stream and tasks/get say it alike`, async () => {
      const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: user.text }) }, { headers: withKey });
      const sentReply = sentText(sent.body.result);
      expect(sentReply).toContain(user.described);

      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: user.text }) }, { headers: withKey });
      const events = results(await stream.rest());
      expect(streamedText(events)).toBe(sentReply);

      const got = await rpc(gateway.url, 'tasks/get', { id: events[0].id }, { headers: withKey });
      expect(sentText(got.body.result)).toBe(sentReply);
      if (user.language !== 'English') expect(sentReply).not.toContain('bytes');
    });
  }
});
