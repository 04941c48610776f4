import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../../src/model/index.js';
import { RelativeEvents, taskRelative } from '../../../src/upstream/iac-code/workspace-path-events.js';
import { FolderInText, RelativeTextStream } from '../../../src/upstream/iac-code/workspace-paths.js';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';

const ROOT = '/srv/ws';
const FOLDER = workspaceOf(ROOT, 'c1');
const folder = new FolderInText(FOLDER);

describe('FolderInText.relative', () => {
  it.each([
    [`写入 ${FOLDER}/main.tf。`, '写入 main.tf。'],
    [`see ${FOLDER}/modules/vpc/main.tf, then`, 'see modules/vpc/main.tf, then'],
    [`\`${FOLDER}/main.tf\``, '`main.tf`'],
    [`in ${FOLDER}.`, 'in ./.'],
    [`in ${FOLDER}/ now`, 'in ./ now'],
    [`工作目录：${FOLDER}`, '工作目录：./'],
    [`(${FOLDER}//main.tf)`, '(main.tf)'],
    [`${FOLDER}/.terraform`, '.terraform'],
  ])('%s → %s', (text, expected) => {
    expect(folder.relative(text)).toBe(expected);
  });

  it.each([
    `/mnt${FOLDER}/main.tf`,
    `./${FOLDER.slice(1)}/main.tf`,
    `${FOLDER}0/main.tf`,
    `${FOLDER}-old/main.tf`,
    `${ROOT}/ctx-other/main.tf`,
    `${workspaceOf(ROOT, 'c2')}/main.tf`,
    `${ROOT}/`,
    '/etc/hosts',
  ])('leaves %s as written', (text) => {
    expect(folder.relative(`at ${text}`)).toBe(`at ${text}`);
  });
});

/** Text made of pieces that come close to the folder's path, and the folder in several forms. */
const pieces = fc.constantFrom(FOLDER, `${FOLDER}/`, `${FOLDER}/main.tf`, '/', '/srv', ROOT, 'ctx-', ' ', 'a', '.', '。', '/main.tf', 'x/', '写入');
const texts = fc.array(pieces, { maxLength: 8 }).map((list) => list.join(''));
const cutsOf = (text: string) => fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 6 });

describe('RelativeTextStream', () => {
  it('told in chunks, cut anywhere, reads as the whole text made relative', () => {
    fc.assert(
      fc.property(
        texts.chain((text) => fc.tuple(fc.constant(text), cutsOf(text))),
        ([text, cuts]) => {
          const at = [0, ...cuts.filter((cut) => cut < text.length).sort((a, b) => a - b), text.length];
          const stream = new RelativeTextStream(folder);
          let told = '';
          for (let i = 1; i < at.length; i++) told += stream.push(text.slice(at[i - 1], at[i]));
          told += stream.end();
          expect(told).toBe(folder.relative(text));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('holds at most what could begin the folder, and nothing of a chunk that cannot', () => {
    const stream = new RelativeTextStream(folder);
    expect(stream.push('写入 /sr')).toBe('写入 ');
    expect(stream.push('v/ws/other')).toBe('/srv/ws/other');
    expect(stream.push(' plain text')).toBe(' plain text');
    expect(stream.holding).toBe(false);
  });
});

const agent = (text: string, messageId = 't1-message'): Message => ({
  messageId,
  role: 'ROLE_AGENT',
  parts: [{ text }],
  contextId: 'c1',
  taskId: 't1',
});
const chunk = (text: string, messageId?: string): StreamResponse => ({
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', message: agent(text, messageId) } },
});
const tool: StreamResponse = {
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, metadata: { iac_code: { tool: { status: 'started' } } } },
};
const textsOf = (events: StreamResponse[]) =>
  events.map((event) => ('statusUpdate' in event ? (event.statusUpdate.status.message?.parts[0]?.text ?? '<no message>') : '<other>'));

const folderOf = (contextId: string) => workspaceOf(ROOT, contextId);

describe('RelativeEvents', () => {
  it('tells what a chunk held with the next chunk of its message, or right before any other event', () => {
    const relative = new RelativeEvents(folderOf);
    const out = [chunk('写入 '), chunk(FOLDER.slice(0, 10)), chunk(`${FOLDER.slice(10)}/main.tf 与 /sr`), tool].flatMap((event) =>
      relative.next(event),
    );
    expect(textsOf(out)).toEqual(['写入 ', '', 'main.tf 与 ', '/sr', '<no message>']);
  });

  it('a chunk of another message ends the running one first', () => {
    const relative = new RelativeEvents(folderOf);
    const out = [chunk(`in ${FOLDER}`), chunk('next', 'other')].flatMap((event) => relative.next(event));
    expect(textsOf(out)).toEqual(['in ', './', 'next']);
  });
});

describe("iac-code's metadata", () => {
  it("a tool's result and input, and a permission's tool input, name files relative to the folder; other paths stay", () => {
    const metadata = {
      iac_code: {
        iacCodeSessionId: 's',
        tool: {
          status: 'completed',
          name: 'write_file',
          result: { ok: true, written: [`${FOLDER}/main.tf`, '/etc/hosts'], depth: { more: `cd ${FOLDER}` } },
        },
        permission: { toolName: 'bash', toolInput: { command: `ls ${FOLDER}/modules` } },
      },
    };
    const event: StreamResponse = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, metadata } };
    const [told] = new RelativeEvents(folderOf).next(event);
    expect(told).toEqual({
      statusUpdate: {
        taskId: 't1',
        contextId: 'c1',
        status: { state: 'TASK_STATE_WORKING' },
        metadata: {
          iac_code: {
            iacCodeSessionId: 's',
            tool: { status: 'completed', name: 'write_file', result: { ok: true, written: ['main.tf', '/etc/hosts'], depth: { more: 'cd ./' } } },
            permission: { toolName: 'bash', toolInput: { command: 'ls modules' } },
          },
        },
      },
    });
    // Nothing names the folder: the event itself goes on.
    const plain: StreamResponse = {
      statusUpdate: {
        taskId: 't1',
        contextId: 'c1',
        status: { state: 'TASK_STATE_WORKING' },
        metadata: { iac_code: { tool: { status: 'started' } } },
      },
    };
    expect(new RelativeEvents(folderOf).next(plain)[0]).toBe(plain);
  });
});

describe('taskRelative', () => {
  it("reads the history's chunks of one message as the stream did, and keeps every message in its place", () => {
    const task: Task = {
      id: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED' },
      history: [
        { messageId: 'u1', role: 'ROLE_USER', parts: [{ text: `mine: ${FOLDER}/x` }] },
        agent(`写入 ${FOLDER.slice(0, 12)}`),
        agent(`${FOLDER.slice(12)}/main.tf`),
        agent(`写入 ${FOLDER}/main.tf`, 't1-2'),
      ],
    };
    const relative = taskRelative(task, folderOf);
    expect(relative.history!.map((message) => message.parts[0]!.text)).toEqual([`mine: ${FOLDER}/x`, '写入 ', 'main.tf', '写入 main.tf']);
    const untouched: Task = { id: 't2', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, history: [agent('nothing here')] };
    expect(taskRelative(untouched, folderOf)).toBe(untouched);
  });

  it('a hold over several chunks that was not the folder goes back to each chunk it came from: no read changes an earlier text', () => {
    // Another path sharing the folder's start, in token-sized chunks: each read of the task (the facade's recovery
    // reads it more than once) must keep the texts the previous read gave.
    const start = FOLDER.slice(0, 2);
    const chunks = [`见 ${start}`, FOLDER.slice(2, 4), '/other 完'];
    const reads = chunks.map((_, count) => {
      const task: Task = {
        id: 't4',
        contextId: 'c1',
        status: { state: 'TASK_STATE_WORKING' },
        history: chunks.slice(0, count + 1).map((text) => agent(text)),
      };
      return taskRelative(task, folderOf).history!.map((message) => message.parts[0]!.text);
    });
    expect(reads).toEqual([chunks.slice(0, 1), chunks.slice(0, 2), chunks]);
  });

  it('a held start that turned out not to be the folder stays with the chunk it came from, as the stream told it', () => {
    const task: Task = { id: 't3', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, history: [agent('第一步 /s'), agent('第二句。')] };
    expect(taskRelative(task, folderOf).history!.map((message) => message.parts[0]!.text)).toEqual(['第一步 /s', '第二句。']);
  });
});
