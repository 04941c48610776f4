import { describe, expect, it } from 'vitest';
import type { Message, Task } from '../../../src/model/index.js';
import { textLanguage, turnLanguage } from '../../../src/surfaces/v025/turn-language.js';

const user = (text: string): Message => ({ messageId: text, role: 'ROLE_USER', parts: [{ text }] });
const agent = (text: string): Message => ({ messageId: text, role: 'ROLE_AGENT', parts: [{ text }] });
const task = (...history: Message[]): Task => ({ id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, history });

describe('the language of a turn', () => {
  it.each([
    ['帮我部署一个网站', 'zh'],
    ['在 cn-hangzhou 建一个 VPC', 'zh'],
    ['ウェブサイトをデプロイして', 'ja'],
    ['東京リージョンに VPC を作って', 'ja'],
    ['Deploy a website for me', 'en'],
    ['2', undefined],
    ['ok', undefined],
    ['Allow once', undefined],
    ['', undefined],
  ])('%j says %s', (text, language) => {
    expect(textLanguage(text)).toBe(language);
  });

  it("is the caller's message's, else their latest message in the task that says one, else the fallback", () => {
    const chinese = task(user('帮我部署一个网站'), agent('Which size do you want for it?'), user('2'));
    expect(turnLanguage(user('Allow once'), chinese, 'en')).toBe('zh');
    expect(turnLanguage(user('Now make it three servers please'), chinese, 'zh')).toBe('en');
    expect(turnLanguage(user('ok'), task(agent('你好，请问需要什么？')), 'en')).toBe('en');
    expect(turnLanguage(undefined, undefined, 'ja')).toBe('ja');
  });
});
