import { describe, expect, it, vi } from 'vitest';
import type { Message, Task } from '../../../../src/model/index.js';
import type { V025FacadeDeps } from '../../../../src/surfaces/v025/deps.js';
import { turnLanguageOf } from '../../../../src/surfaces/v025/reply-options.js';
import { createMemoryConversationLanguages } from '../../../../src/surfaces/v025/notes/conversation-languages.js';
import { kindOf, textLanguage, turnLanguage, type CharKind } from '../../../../src/surfaces/v025/turn/turn-language.js';

const user = (text: string): Message => ({ messageId: text, role: 'ROLE_USER', parts: [{ text }] });
const agent = (text: string): Message => ({ messageId: text, role: 'ROLE_AGENT', parts: [{ text }] });
const task = (...history: Message[]): Task => ({ id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, history });
const languageOf = (text: string, previous?: Task, remembered?: 'en' | 'zh' | 'ja') =>
  turnLanguage(user(text), { previous, ...(remembered ? { remembered } : {}) }).language;

describe('the language of a turn', () => {
  it.each([
    ['帮我部署一个网站', 'zh'],
    ['在 cn-hangzhou 建一个 VPC', 'zh'],
    ['用 Terraform 写一个 VPC template with two vSwitches', 'zh'],
    ['Please deploy my site in the 华东1 region', 'en'],
    ['deploy my site to 华东1', 'en'],
    ['deploy to 华东1', undefined],
    ['Deploy to 华东1（杭州）', undefined],
    ['Deploy my website to 华东2 (上海) please', 'en'],
    ['华东1', undefined],
    ['在华东1（杭州）建一个 VPC', 'zh'],
    ['请在华东1部署', 'zh'],
    [':( 帮我部署一个网站', 'zh'],
    ['（注意：请帮我检查这个模板的安全组规则）', 'zh'],
    ['建一个 VPC', 'zh'],
    ['ウェブサイトをデプロイして', 'ja'],
    ['東京リージョンに VPC を作って', 'ja'],
    ['好的ヽ(✿ﾟ▽ﾟ)ノ', 'zh'],
    // Katakana words (`ファイル`, `サブネット`) are Japanese, with a particle or without: Chinese is never written so.
    ['ファイルをアップロード', 'ja'],
    ['VPCのサブネット', 'ja'],
    ['データベース', 'ja'],
    ['ﾃﾞｰﾀﾍﾞｰｽ', 'ja'],
    ['ECS インスタンスを停止', 'ja'],
    // A lone katakana of an emoticon is none (`¯\\_(ツ)_/¯`, `(ﾉ◕ヮ◕)ﾉ`).
    ['好的 ¯\\_(ツ)_/¯', 'zh'],
    ['可以(ﾉ◕ヮ◕)ﾉ*:･ﾟ✧', 'zh'],
    ['可以の', 'zh'],
    // One hiragana beside a Chinese character is a particle or an ending (`を`, `して`): Japanese, terse as it is.
    ['VPCを作成', 'ja'],
    ['ECSを停止', 'ja'],
    ['削除して', 'ja'],
    ['好的 ⊂(・∀・)つ', 'zh'],
    ['Deploy a website for me', 'en'],
    ['2', undefined],
    ['ok', undefined],
    ['Allow once', undefined],
    ['', undefined],
  ])('%j says %s', (text, language) => {
    expect(textLanguage(text)).toBe(language);
  });

  it('a long paste is read by its head: Chinese first, an English template after it', () => {
    expect(textLanguage(`帮我检查这个模板：\n${'Resources: { MyVpc: { Type: ALIYUN::ECS::VPC } }\n'.repeat(10_000)}`)).toBe('zh');
  });

  it("is the caller's message's, else their latest message in the task that says one, else the agent's, else none", () => {
    const chinese = task(user('帮我部署一个网站'), agent('Which size do you want for it?'), user('2'));
    expect(languageOf('Allow once', chinese)).toBe('zh');
    expect(languageOf('Now make it three servers please', chinese)).toBe('en');
    expect(languageOf('ok', task(agent('你好，请问需要什么？')))).toBe('zh');
    expect(languageOf('ok', task(agent('OK')))).toBeUndefined();
    expect(turnLanguage(undefined, { previous: chinese })).toEqual({ language: 'zh', said: false });
  });

  it('Chinese characters alone answering a Japanese conversation stay Japanese (許可, 拒否, 2番, 候補2)', () => {
    const japanese = task(user('ウェブサイトをデプロイしてください'), agent('どちらにしますか？'));
    for (const answer of ['許可', '拒否', '2番', '候補2']) expect(languageOf(answer, japanese)).toBe('ja');
    expect(languageOf('許可', undefined, 'ja')).toBe('ja');
    expect(languageOf('许可', task(user('Deploy a website for me')))).toBe('zh');
  });

  it('the language remembered for the conversation comes before its history, which may hold words the gateway put there or be cut short', () => {
    const rewritten = task(user('Deploy a website for me'), user('方案B：SAE 托管'));
    expect(languageOf('yes', rewritten, 'en')).toBe('en');
    expect(languageOf('yes', task(), 'zh')).toBe('zh');
    expect(languageOf('好的', rewritten, 'en')).toBe('zh');
  });

  it("a turn's language is remembered for its conversation when the caller's message said it, and wins over a misleading history", async () => {
    const facade = (language: string) => ({ options: { bailian: { language } } }) as unknown as V025FacadeDeps;
    const languages = createMemoryConversationLanguages({ max: 100, idleTtlMs: 0 });
    const inContext = (text: string): Message => ({ ...user(text), contextId: 'C' });
    expect(await turnLanguageOf(facade('auto'), { message: inContext('帮我部署一个网站'), principal: 'p' }, languages)).toBe('zh');
    const misleading = task(user('Deploy a website for me please'));
    expect(await turnLanguageOf(facade('auto'), { message: inContext('2'), previous: misleading, principal: 'p' }, languages)).toBe('zh');
    expect(await turnLanguageOf(facade('auto'), { message: inContext('2'), previous: misleading, principal: 'q' }, languages)).toBe('en');
    expect(await languages.of('q', 'C')).toBeUndefined();
    expect(await turnLanguageOf(facade('ja'), { message: inContext('帮我部署一个网站'), principal: 'p' }, languages)).toBe('ja');
  });
});

describe('what reading a language costs', () => {
  /** Each character's kind as the Unicode script expressions tell it, one run each, as the facade read it before. */
  const byScripts = (char: string): CharKind => {
    if (/\p{Script=Latin}/u.test(char)) return 'latin';
    if (/\p{Script=Han}/u.test(char)) return 'han';
    if (/\d/.test(char)) return 'digit';
    if (/[(（]/.test(char)) return 'opening';
    if (/[)）]/.test(char)) return 'closing';
    if (/\p{Script=Hiragana}/u.test(char)) return 'hiragana';
    return /\p{Script=Katakana}/u.test(char) ? 'katakana' : 'other';
  };

  it('every character of the Basic Multilingual Plane, and a few beyond it, is of the kind its Unicode script says', () => {
    const differing: string[] = [];
    const astral = [0x1f600, 0x20000, 0x2a6d6, 0x1d400];
    for (const code of [...Array.from({ length: 0x10000 }, (_, at) => at), ...astral]) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (kindOf(char) !== byScripts(char)) differing.push(code.toString(16));
    }
    expect(differing).toEqual([]);
  });

  it('an English or a Chinese message is read without a regular expression run per character', () => {
    const runs = vi.spyOn(RegExp.prototype, 'test');
    try {
      expect(textLanguage('Please deploy my website to the 华东1 region, with two servers (and a database)')).toBe('en');
      expect(textLanguage('帮我在华东1部署一个网站')).toBe('zh');
      expect(runs).not.toHaveBeenCalled();
    } finally {
      runs.mockRestore();
    }
  });
});
