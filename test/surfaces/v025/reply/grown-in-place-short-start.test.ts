/**
 * An agent that updates one message in place as it grows (each working message under one id holds the whole text
 * so far) and whose first version is a word or two ("你好，", "Hello w"): too short to tell from a delta said twice,
 * it and the second version are read as they came (facade-reply.md, "Not recognised"). From the third version on,
 * each says the one before it again, whole, then more: only what it adds is shown. Before, every later version was
 * shown whole after the others, and the user read the answer once per update.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { bailian, options, shownAlike, status, submitted } from './support.js';

/** Each version the whole text up to the end of one of `pieces`, all under the message id `m`. */
const grownInPlace = (pieces: readonly string[]): StreamResponse[] =>
  pieces.map((_, at) => status('TASK_STATE_WORKING', pieces.slice(0, at + 1).join(''), {}, 'm'));

const read = (events: StreamResponse[]): string => shownAlike([submitted, ...events], options(bailian));

describe('a message grown in place under one id from a short first version', () => {
  it.each([
    ['English', ['Hello w', 'orld, the stack ', 'is deployed in ', 'cn-hangzhou.']],
    ['Chinese', ['你好，', '我已经为你创建了', '专有网络和交换机，', '请在控制台查看。']],
    ['emoji', ['部署完成 ✅', ' 👨‍💻 请查看', '资源列表。']],
  ])('%s: the first two versions as they came, then each later word once', (_, pieces) => {
    const [first = '', second = ''] = pieces;
    const whole = pieces.join('');
    const text = read([...grownInPlace(pieces), status('TASK_STATE_COMPLETED')]);
    expect(text).toBe(first + first + second + whole.slice((first + second).length));
  });

  it('closed by the whole text under the same id: nothing more', () => {
    const pieces = ['Hello w', 'orld, the stack ', 'is deployed.'];
    const text = read([...grownInPlace(pieces), status('TASK_STATE_COMPLETED', pieces.join(''), {}, 'm')]);
    expect(text).toBe('Hello wHello world, the stack is deployed.');
  });

  it('deltas under one id that never say the one before again still run on as they came', () => {
    const deltas = ['Creating the ', 'VPC now. ', 'Creating the ', 'vSwitch now.'];
    const text = read([...deltas.map((delta) => status('TASK_STATE_WORKING', delta, {}, 'm')), status('TASK_STATE_COMPLETED')]);
    expect(text).toBe(deltas.join(''));
  });
});

describe('deltas under one id that flush whole lines', () => {
  it('a line that opens as the line before it, then more, is its own line', () => {
    const lines = ['正在执行部署步骤：\n', '- 创建专有网络\n', '- 创建专有网络的交换机\n', '- 创建专有网络的交换机 vsw-1 成功\n', '全部完成。'];
    const text = read([...lines.map((line) => status('TASK_STATE_WORKING', line, {}, 'm')), status('TASK_STATE_COMPLETED')]);
    expect(text).toBe(lines.join(''));
  });
});
