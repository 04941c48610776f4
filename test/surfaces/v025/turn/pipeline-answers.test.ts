import { describe, expect, it } from 'vitest';
import type { SendMessageRequest, Task } from '../../../../src/model/index.js';
import { answerPipelineChoice } from '../../../../src/surfaces/v025/turn/pipeline-answers.js';
import { waitsOnDecision } from '../../../../src/surfaces/v025/turn/permission-answers.js';

const choice = (kind = 'candidate_selection'): Task => ({
  id: 'T',
  contextId: 'C',
  status: { state: 'TASK_STATE_INPUT_REQUIRED' },
  metadata: {
    iac_code: {
      input: {
        kind,
        inputId: 'input-1',
        options: [
          { id: '0', label: '方案A：ECS+RDS' },
          { id: '1', label: '方案B：SAE' },
        ],
      },
    },
  },
});
const reply = (text: string, extra: Partial<SendMessageRequest['message']> = {}): SendMessageRequest => ({
  message: { messageId: 'm', role: 'ROLE_USER', contextId: 'C', parts: [{ text }], ...extra },
});
const sent = (request: SendMessageRequest): unknown => request.message.parts;

describe('a candidate picked by the number the facade listed it under', () => {
  it("becomes the option's name, the one answer iac-code takes as it is", () => {
    expect(sent(answerPipelineChoice(reply(' 2 '), choice()))).toEqual([{ text: '方案B：SAE' }]);
    expect(sent(answerPipelineChoice(reply('1'), choice()))).toEqual([{ text: '方案A：ECS+RDS' }]);
    // As people write a number: iac-code itself would read 方案2 or candidate 2 as the third option.
    for (const said of ['2.', '２', '#2', '方案2', '方案 2', '第2个', '选2', '我选2', 'Candidate 2', 'plan 2', '2号']) {
      expect(sent(answerPipelineChoice(reply(said), choice())), said).toEqual([{ text: '方案B：SAE' }]);
    }
  });

  it('or by a numeral from 一 to 十, in the forms a number takes, Chinese and Japanese', () => {
    for (const said of [
      '二',
      '第二个',
      '第二',
      '方案二',
      '方案 二',
      '选二',
      '我选二',
      '选第二个',
      '第二个方案',
      '候选二',
      '二号',
      '二番',
      '二番目',
      '二つ目',
    ]) {
      expect(sent(answerPipelineChoice(reply(said), choice())), said).toEqual([{ text: '方案B：SAE' }]);
    }
    for (const said of ['一', '第一个', '选第一个', '第一个方案', '我要第一个', '选第1个', '第1个方案', '1つ目']) {
      expect(sent(answerPipelineChoice(reply(said), choice())), said).toEqual([{ text: '方案A：ECS+RDS' }]);
    }
  });

  it("a reply naming one option by its label's head, rest or letter becomes the option's name", () => {
    for (const said of ['方案B', '方案b。', 'B', 'b', 'SAE', 'sae', '选方案B', '我选 SAE', 'I pick B', '方案B：SAE']) {
      expect(sent(answerPipelineChoice(reply(said), choice())), said).toEqual([{ text: '方案B：SAE' }]);
    }
    expect(sent(answerPipelineChoice(reply('ecs+rds'), choice()))).toEqual([{ text: '方案A：ECS+RDS' }]);
  });

  it('anything else goes as it was said: words, a number not listed, a reply with more than text, another kind of question, no question', () => {
    for (const [request, paused] of [
      [reply('the second one'), choice()],
      [reply('方案C'), choice()],
      [reply('2?'), choice()],
      [reply('方案B?'), choice()],
      [reply('ECS'), choice()],
      [reply('2 and 3'), choice()],
      [reply('0'), choice()],
      // A numeral that counts rather than picks, one not listed, or in more words than a pick.
      [reply('一个'), choice()],
      [reply('选一个'), choice()],
      [reply('两个'), choice()],
      [reply('选两个'), choice()],
      [reply('第三个'), choice()],
      [reply('十'), choice()],
      [reply('〇'), choice()],
      [reply('第二个吧'), choice()],
      [reply('二和三'), choice()],
      [reply('3'), choice()],
      [reply('2', { parts: [{ text: '2' }, { url: 'https://example.com/a.png', mediaType: 'image/png' }] }), choice()],
      [reply('2'), choice('ask_user_question')],
      [reply('2'), { ...choice(), status: { state: 'TASK_STATE_WORKING' } } as Task],
      [reply('2'), undefined],
    ] as const) {
      expect(answerPipelineChoice(request, paused)).toBe(request);
    }
  });
});

/** A deployment to confirm, as iac-code asks it: in the envelopes of the update that ends the turn, with text before it. */
const confirmation = (
  options: unknown[] = [
    { action: 'confirm', name: '确认部署' },
    { action: 'adjust', name: '调整参数' },
    { action: 'cancel', name: '取消' },
  ],
): Task => ({
  id: 'T',
  contextId: 'C',
  status: { state: 'TASK_STATE_INPUT_REQUIRED' },
  metadata: {
    iac_code: {
      pipelineBatch: {
        events: [
          { eventType: 'text_delta', status: 'working', data: { text: '方案已就绪。' } },
          { eventType: 'input_required', status: 'input_required', data: { kind: 'deployment_confirmation', prompt: '请选择下一步操作', options } },
        ],
      },
    },
  },
});

describe('a deployment confirmed by the number the facade listed its option under, or by its name', () => {
  it("becomes the option's structured action, which iac-code carries out as sent", () => {
    for (const said of ['1', ' 1。', '１', '第一个', '确认部署', '确认部署！']) {
      expect(sent(answerPipelineChoice(reply(said), confirmation())), said).toEqual([{ text: '{"action":"confirm"}' }]);
    }
    expect(sent(answerPipelineChoice(reply('3'), confirmation()))).toEqual([{ text: '{"action":"cancel"}' }]);
    expect(sent(answerPipelineChoice(reply('取消'), confirmation()))).toEqual([{ text: '{"action":"cancel"}' }]);
    // A change its user has yet to say goes as the option's words, for iac-code's model to ask about.
    expect(sent(answerPipelineChoice(reply('2'), confirmation()))).toEqual([{ text: '调整参数' }]);
    // An option without a name is listed (and picked) by its action.
    expect(sent(answerPipelineChoice(reply('confirm'), confirmation([{ action: 'confirm' }])))).toEqual([{ text: '{"action":"confirm"}' }]);
  });

  it("anything else goes as it was said, for iac-code's model: words, a number not listed, an option without an action", () => {
    for (const [request, paused] of [
      [reply('把实例换成 ecs.g7.large 再部署'), confirmation()],
      [reply('4'), confirmation()],
      [reply('1'), confirmation([{ name: '确认部署' }, { action: 'cancel', name: '取消' }])],
      [reply('1'), confirmation(['确认部署', { action: 'cancel', name: '取消' }])],
      [reply('1'), { ...confirmation(), status: { state: 'TASK_STATE_WORKING' } } as Task],
    ] as const) {
      expect(answerPipelineChoice(request, paused)).toBe(request);
    }
  });
});

describe('a decision the facade makes of the caller words', () => {
  it('is pending on a candidate choice, a deployment to confirm or a permission prompt while the task waits for input, on nothing else', () => {
    expect(waitsOnDecision(choice())).toBe(true);
    expect(waitsOnDecision(confirmation())).toBe(true);
    const permission = {
      ...choice('permission'),
      metadata: { iac_code: { input: { kind: 'permission', requestTaskId: 'T', inputId: 'p', toolUseId: 'tu' } } },
    };
    expect(waitsOnDecision(permission)).toBe(true);
    expect(waitsOnDecision(choice('ask_user_question'))).toBe(false);
    expect(waitsOnDecision({ ...choice(), status: { state: 'TASK_STATE_WORKING' } })).toBe(false);
  });
});
