/**
 * What tasks/get leaves out of a follow-up turn's reply (files-before-turn.ts): the files the task held before the
 * turn, told by a note kept as the turn began, per part, whatever form a copy of the file takes since.
 */
import { describe, expect, it } from 'vitest';
import type { Artifact, Part, Task } from '../../../../src/model/index.js';
import { createMemoryFilesBeforeTurn, earlierFilesOf, turnFilesOf } from '../../../../src/surfaces/v025/turn/files-before-turn.js';

const SHA = 'a'.repeat(64);
/** iac-code's stored file as the registry keeps it: its URL. */
const stored: Part = {
  url: 'iac-code-artifact://f1/main.tf',
  filename: 'main.tf',
  mediaType: 'text/plain',
  metadata: { sha256: SHA, uri: 'iac-code-artifact://f1/main.tf' },
};
/** The same file read in (core/inline-artifacts.ts): its bytes in place of the URL. */
const readIn: Part = {
  raw: 'cmVzb3VyY2U=',
  filename: 'main.tf',
  mediaType: 'text/plain',
  metadata: { sha256: SHA, uri: 'iac-code-artifact://f1/main.tf' },
};

const file = (artifactId: string, parts: Part[]): Artifact => ({ artifactId, name: artifactId, parts });

function task(artifacts: Artifact[], lastUserMessageId = 'answer'): Task {
  return {
    id: 't-1',
    contextId: 'c-1',
    status: { state: 'TASK_STATE_COMPLETED' },
    artifacts,
    history: [
      { messageId: 'ask', role: 'ROLE_USER', parts: [{ text: 'make a VPC' }] },
      { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'Which region?' }] },
      { messageId: lastUserMessageId, role: 'ROLE_USER', parts: [{ text: 'cn-hangzhou' }] },
    ],
  };
}

describe('the files a follow-up found in its task', () => {
  const before = [file('f1', [stored]), file('log', [{ text: 'line 1\n' }]), file('plan', [{ data: { vpcs: 1 } }])];
  const note = turnFilesOf('answer', before);

  it("leaves out a file the turn did not touch, also once it is read in where the note saw iac-code's URL", () => {
    const now = task([file('f1', [readIn]), file('log', [{ text: 'line 1\n' }]), file('plan', [{ data: { vpcs: 1 } }])]);
    expect(earlierFilesOf(now, note)?.unchanged.map((artifact) => artifact.artifactId)).toEqual(['f1', 'log', 'plan']);
  });

  it('tells of a file the turn appended to how many parts were there, and keeps one written anew and a new one as the turn’s', () => {
    const now = task([
      file('log', [{ text: 'line 1\n' }, { text: 'line 2\n' }]),
      file('plan', [{ data: { vpcs: 2 } }]),
      file('new', [{ text: 'x' }]),
    ]);
    const earlier = earlierFilesOf(now, note);
    expect(earlier?.unchanged).toEqual([]);
    expect([...(earlier?.grown ?? [])]).toEqual([['log', 1]]);
  });

  it('holds only for the turn that noted it: a later turn of the task has files of its own', () => {
    expect(earlierFilesOf(task(before, 'a-later-answer'), note)).toBeUndefined();
    expect(turnFilesOf('answer', [])).toBeUndefined();
  });

  it("is kept per caller: another caller's read of the task finds no note", async () => {
    const files = createMemoryFilesBeforeTurn({ max: 10, idleTtlMs: 0 });
    await files.note('alice', 't-1', note!);
    expect(await files.of('alice', 't-1')).toEqual(note);
    expect(await files.of('bob', 't-1')).toBeUndefined();
  });
});
