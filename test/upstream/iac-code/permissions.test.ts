import { describe, expect, it } from 'vitest';
import { chosenOption, pendingPermission, permissionAnswer } from '../../../src/upstream/iac-code/permissions.js';

const input = {
  schemaVersion: 1.0,
  kind: 'permission',
  requestTaskId: 'T',
  inputId: 'permission-1',
  toolUseId: 'tu-9',
  toolName: 'bash',
  prompt: 'Run a local shell command Allow once?',
  options: [
    { id: 'allow_once', label: 'Allow once' },
    { id: 'deny', label: 'Deny' },
  ],
};
const request = pendingPermission({ iac_code: { input, permission: { pending: true } } })!;

describe("iac-code's permission prompt", () => {
  it('is read from metadata.iac_code.input, and only there', () => {
    expect(request).toEqual({
      requestTaskId: 'T',
      inputId: 'permission-1',
      toolUseId: 'tu-9',
      prompt: input.prompt,
      toolName: 'bash',
      options: input.options,
    });
    expect(pendingPermission({ iac_code: { input: { ...input, kind: 'other' } } })).toBeUndefined();
    expect(pendingPermission({ iac_code: { input: { ...input, inputId: undefined } } })).toBeUndefined();
    expect(pendingPermission(undefined)).toBeUndefined();
  });

  it('keeps what iac-code left out unnamed, for whoever shows it to name', () => {
    const bare = pendingPermission({ iac_code: { input: { ...input, prompt: undefined, options: [{ id: 'allow_always' }] } } });
    expect(bare).toEqual({ requestTaskId: 'T', inputId: 'permission-1', toolUseId: 'tu-9', toolName: 'bash', options: [{ id: 'allow_always' }] });
    expect(pendingPermission({ iac_code: { input: { ...input, options: [] } } })?.options).toEqual([{ id: 'allow_once' }, { id: 'deny' }]);
  });

  it.each([
    ['Allow once', 'allow_once'],
    ['  allow_once ', 'allow_once'],
    ['ALLOW ONCE.', 'allow_once'],
    ['yes', 'allow_once'],
    ['好的', 'allow_once'],
    ['deny', 'deny'],
    ['No', 'deny'],
    ['拒绝', 'deny'],
    ['what is this?', undefined],
    ['allow twice', undefined],
    ['はい', 'allow_once'],
    ['拒否', 'deny'],
    // As people answer: with more than one word, in the list's order, in their own way.
    ['是的', 'allow_once'],
    ['好的，允许吧', 'allow_once'],
    ['Yes, go ahead', 'allow_once'],
    ['許可します', 'allow_once'],
    ['不允许', 'deny'],
    ['Allow once!!', 'allow_once'],
    ['好啊', 'allow_once'],
    ['行吧', 'allow_once'],
    // Numbers: the prompt as shown numbers nothing.
    ['1', undefined],
    ['２', undefined],
    // A reply that asks back or trails off decides nothing.
    ['yes?', undefined],
    ['ok?', undefined],
    ['可以？', undefined],
    ['はい？', undefined],
    ['是的？', undefined],
    ['确认?', undefined],
    ['ok...', undefined],
    ['好吧……', undefined],
    ['yes..', undefined],
    ['ok. . .', undefined],
    ['ok . . .', undefined],
    ['yes . .', undefined],
    ['好。 。', undefined],
    // More of how people say yes.
    ['Yes, please.', 'allow_once'],
    ['yeah', 'allow_once'],
    ['没问题', 'allow_once'],
    ['可以的', 'allow_once'],
    ['うん', 'allow_once'],
    // A tag question is not a yes.
    ['是吧', undefined],
    ['对吧', undefined],
    ['是嘛', undefined],
    ['可以吧', undefined],
    // In Japanese these decline as often as they accept.
    ['いいです', undefined],
    ['いいよ', undefined],
    ['yes, but use a smaller instance', undefined],
    ['好的，不要', undefined],
    // A refusal said as a suggestion, or with "then", is a refusal; so are everyday ways to say no.
    ['拒绝吧', 'deny'],
    ['拒绝吧。', 'deny'],
    ['不允许吧', 'deny'],
    ['那就拒绝吧', 'deny'],
    ['那就允许吧', 'allow_once'],
    ['那是', undefined],
    ['Deny it', 'deny'],
    ['Allow it', 'allow_once'],
    ['nope', 'deny'],
    ['算了', 'deny'],
    ['别写了', 'deny'],
    // Chinese go-aheads to the run, and an option's label copied with the quotes it was shown in.
    ['确定', 'allow_once'],
    ['继续', 'allow_once'],
    ['嗯', 'allow_once'],
    ['执行吧', 'allow_once'],
    ['好的，执行吧', 'allow_once'],
    ['可以，请执行', 'allow_once'],
    ['“Allow once”', 'allow_once'],
    ['"Allow once".', 'allow_once'],
    ['「Deny」', 'deny'],
    ['‘yes’', 'allow_once'],
    ['好的，“允许”', 'allow_once'],
    // Their refusals: never consent. Not sure is no answer; the rest deny.
    ['不确定', undefined],
    ['确定？', undefined],
    ['嗯？', undefined],
    ['不要继续', 'deny'],
    ['别执行', 'deny'],
    ['不执行', 'deny'],
    ['先不要', 'deny'],
    ['好的，别执行', undefined],
    ["don't", 'deny'],
    // Everyday replies as typed on a phone: an emoji, words run together, 吧 on a refusal, katakana.
    ['👍', 'allow_once'],
    ['👍🏽', 'allow_once'],
    ['✅️', 'allow_once'],
    ['允许 👍', 'allow_once'],
    ['好的👌', 'allow_once'],
    ['👎', 'deny'],
    ['❌', 'deny'],
    ['算了吧', 'deny'],
    ['キャンセル', 'deny'],
    ['yes please go ahead', 'allow_once'],
    ['ok go ahead', 'allow_once'],
    // Still undecided: yes and no together, a question back, a request for something else, an emoji that says neither.
    ['👍👎', undefined],
    ['允许 👎', undefined],
    ['👍？', undefined],
    ['算了吧？', undefined],
    ['yes please go ahead and use a smaller instance', undefined],
    ['yes go ahead but not in prod', undefined],
    ["don't go ahead", undefined],
    ["don't stop", undefined],
    ['please stop', undefined],
    ['😊', undefined],
    ['好的😊', undefined],
  ])('%j picks %s', (reply, decision) => {
    expect(chosenOption(request, reply)).toBe(decision);
  });

  it('takes a plain yes as allowing once, never for good', () => {
    const listed = (options: { id: string; label?: string }[]) => ({ ...request, options });
    const always = { id: 'allow_always', label: 'Always allow' };
    const once = { id: 'allow_once', label: 'Allow once' };
    const deny = { id: 'deny', label: 'Deny' };
    expect(chosenOption(listed([always, once, deny]), 'yes')).toBe('allow_once');
    expect(chosenOption(listed([always, { id: 'allow_session' }, deny]), '好的')).toBe('allow_session');
    expect(chosenOption(listed([always, deny]), 'yes')).toBeUndefined();
    expect(chosenOption(listed([always, deny]), 'Always allow')).toBe('allow_always');
    expect(chosenOption(listed([always, once, deny]), 'yes please always allow')).toBe('allow_always');
    expect(chosenOption(listed([always, once, deny]), 'yes please 👍')).toBe('allow_once');
    expect(chosenOption(listed([always, deny]), 'no')).toBe('deny');
  });

  it('also picks an option by a name its asker gave it', () => {
    const names = (id: string): string[] => (id === 'allow_once' ? ['允许一次', '仅允许一次'] : []);
    expect(chosenOption(request, '允许一次', names)).toBe('allow_once');
    expect(chosenOption(request, '“仅允许一次”', names)).toBe('allow_once');
    expect(chosenOption(request, '「仅允许一次」。', names)).toBe('allow_once');
    expect(chosenOption(request, '允许一次')).toBeUndefined();
  });

  it('is answered with exactly the six keys iac-code checks, as application/json data', () => {
    expect(permissionAnswer(request, 'deny')).toEqual({
      data: { schemaVersion: 1, kind: 'permission', requestTaskId: 'T', inputId: 'permission-1', toolUseId: 'tu-9', decision: 'deny' },
      mediaType: 'application/json',
    });
  });
});
