import { describe, expect, it } from 'vitest';
import { chosenOption, pendingPermission, permissionAnswer, permissionPromptText } from '../../../src/upstream/iac-code/permissions.js';

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
    expect(request).toEqual({ requestTaskId: 'T', inputId: 'permission-1', toolUseId: 'tu-9', prompt: input.prompt, options: input.options });
    expect(pendingPermission({ iac_code: { input: { ...input, kind: 'other' } } })).toBeUndefined();
    expect(pendingPermission({ iac_code: { input: { ...input, inputId: undefined } } })).toBeUndefined();
    expect(pendingPermission(undefined)).toBeUndefined();
  });

  it('reads as its prompt and the answers to give', () => {
    expect(permissionPromptText(request)).toBe('Run a local shell command Allow once?\nReply "Allow once" or "Deny".');
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
  ])('%j picks %s', (reply, decision) => {
    expect(chosenOption(request, reply)).toBe(decision);
  });

  it('is answered with exactly the six keys iac-code checks, as application/json data', () => {
    expect(permissionAnswer(request, 'deny')).toEqual({
      data: { schemaVersion: 1, kind: 'permission', requestTaskId: 'T', inputId: 'permission-1', toolUseId: 'tu-9', decision: 'deny' },
      mediaType: 'application/json',
    });
  });
});
