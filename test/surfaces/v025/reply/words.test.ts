/**
 * The facade's own words in the language of the turn: the same pipeline turn and permission prompt read
 * by a user writing Chinese and one writing Japanese. The agent's words are never touched; only what the
 * facade itself adds around them (headings, how to answer, defaults, why a turn broke off) changes.
 */
import { describe, expect, it } from 'vitest';
import { createTurnReply, facadeWords, type FacadeLanguage } from '../../../../src/surfaces/v025/reply/index.js';
import { batch, candidate, envelope, single, step, text } from './pipeline-support.js';
import { options, readText, run, spec, status, submitted } from './support.js';

const inLanguage = (language: FacadeLanguage) => options(undefined, { words: facadeWords(language) });

const planning = [
  submitted,
  single('TASK_STATE_WORKING', envelope('step_started', { name: 'architecture_planning' }, step('architecture_planning', 2))),
  single('TASK_STATE_WORKING', text('先看需求。', step('architecture_planning', 2))),
  batch('TASK_STATE_WORKING', [text('方案甲', candidate(0, 'ECS')), text('方案乙', candidate(1))]),
  single(
    'TASK_STATE_INPUT_REQUIRED',
    envelope('input_required', {
      kind: 'deployment_confirmation',
      prompt: '确认部署吗？',
      validation_error: 'bad_answer',
      template_url: 'https://example.com/t.yaml',
      options: [{ action: 'confirm', name: '部署' }, {}],
      allowFreeText: true,
    }),
  ),
];

const promptWithoutWords = single('TASK_STATE_INPUT_REQUIRED', envelope('permission_requested', { toolName: 'write_file' }), {
  input: { kind: 'permission', requestTaskId: 'T', inputId: 'perm-1', toolUseId: 'tu', toolName: 'write_file' },
});

const rerun = single(
  'TASK_STATE_WORKING',
  envelope('step_started', { name: 'cost_estimating' }, { step: { id: 'cost_estimating', runId: 'r2', index: 3, total: 3, attempt: 2 } }),
);

describe("the facade's own words", () => {
  it('in Chinese: step names as iac-code translates them, candidates, the template, how to answer', () => {
    expect(readText(run(planning, inLanguage('zh')))).toBe(
      [
        '步骤 2/3：架构规划',
        '先看需求。',
        '候选方案 1（ECS）：',
        '方案甲',
        '候选方案 2：',
        '方案乙',
        '无法识别该回答。',
        '确认部署吗？',
        '模板：https://example.com/t.yaml',
        '1. 部署',
        '2. （未命名的选项）',
        '请回复编号，或直接用文字说明。',
      ].join('\n'),
    );
    expect(readText(run([submitted, promptWithoutWords], inLanguage('zh')))).toBe('是否允许运行 write_file？\n请回复“允许一次”或“拒绝”。');
    expect(readText(run([submitted, rerun], inLanguage('zh')))).toBe('步骤 3/3：成本估算（第 2 次尝试）\n上游智能体在本轮对话结束前中断了输出');
  });

  it('in Japanese', () => {
    expect(readText(run(planning, inLanguage('ja')))).toBe(
      [
        'ステップ 2/3：アーキテクチャ計画',
        '先看需求。',
        '候補 1（ECS）：',
        '方案甲',
        '候補 2：',
        '方案乙',
        'その回答は受け付けられませんでした。',
        '确认部署吗？',
        'テンプレート：https://example.com/t.yaml',
        '1. 部署',
        '2. （名前のない選択肢）',
        '番号、または文章で返信してください。',
      ].join('\n'),
    );
    expect(readText(run([submitted, promptWithoutWords], inLanguage('ja')))).toBe(
      'write_fileの実行を許可しますか？\n「今回のみ許可」または「拒否」と返信してください。',
    );
    expect(readText(run([submitted, rerun], inLanguage('ja')))).toBe(
      'ステップ 3/3：コスト見積もり（2 回目）\n上流のエージェントの応答が、このやり取りの完了前に途切れました',
    );
  });

  it("iac-code's own labels, unless it wrote them in another language than the user's", () => {
    const labelled = (language: string) =>
      single('TASK_STATE_INPUT_REQUIRED', envelope('permission_requested'), {
        input: {
          kind: 'permission',
          requestTaskId: 'T',
          inputId: 'perm-2',
          toolUseId: 'tu',
          prompt: '要写 main.tf 吗？',
          language,
          options: [
            { id: 'allow_once', label: '允许一次' },
            { id: 'allow_always', label: '总是允许' },
            { id: 'deny', label: '不允许' },
            { id: 'ask_later', label: '稍后再问' },
          ],
        },
      });
    expect(readText(run([submitted, labelled('zh-CN')], inLanguage('zh')))).toBe(
      '要写 main.tf 吗？\n请回复“允许一次”、“总是允许”、“不允许”或“稍后再问”。',
    );
    expect(readText(run([submitted, labelled('zh')]))).toBe('要写 main.tf 吗？\nReply "Allow once" or "Always allow" or "Deny" or "稍后再问".');
  });

  it("the gateway's own reasons for a failed turn in the user's language; anyone else's as they are", () => {
    const failed = (reason: string, language: FacadeLanguage) => {
      const reply = createTurnReply(inLanguage(language));
      reply.push(submitted);
      return readText(reply.fail(reason));
    };
    expect(failed('Upstream agent timed out', 'ja')).toBe('上流のエージェントが時間内に応答しませんでした');
    // A turn the shutdown cut goes on at the agent: not "try again later", which would run it twice.
    expect(failed('The gateway is shutting down', 'zh')).toBe(facadeWords('zh').turnCutByShutdown);
    expect(failed('The gateway is shutting down', 'en')).toBe(facadeWords('en').turnCutByShutdown);
    expect(failed('Upstream agent timed out', 'en')).toBe('Upstream agent timed out');
    expect(failed('RuntimeError: boom', 'zh')).toBe('RuntimeError: boom');
    expect(failed('Internal error', 'zh')).toBe('网关内部错误，请稍后重试');
    expect(failed('Upstream agent timed out: no event within 30000 ms of the call', 'zh')).toBe('上游智能体响应超时');
    expect(failed('Upstream agent timed out: no event within 30000 ms of the call', 'en')).toBe(
      'Upstream agent timed out: no event within 30000 ms of the call',
    );
    expect(failed('Upstream agent timed outright', 'zh')).toBe('Upstream agent timed outright');
  });

  it("in English, iac-code's own name for a step where it differs from its id", () => {
    expect(readText(run([submitted, rerun]))).toBe(
      'Step 3/3: Cost estimation (attempt 2)\nThe upstream agent ended the stream before the turn finished',
    );
    expect(readText(run([submitted, promptWithoutWords]))).toBe('Allow write_file to run?\nReply "Allow once" or "Deny".');
  });
});

describe('a turn that ends having said nothing of how', () => {
  it("a failure without a reason, or a question never asked, is told in the user's language; anything said is left as it is", () => {
    expect(readText(run([submitted, status('TASK_STATE_FAILED')], inLanguage('zh')))).toBe('智能体未能完成本次请求。');
    expect(readText(run([submitted, status('TASK_STATE_WORKING', 'Deploying the VPC'), status('TASK_STATE_REJECTED')]))).toBe(
      'Deploying the VPC\nThe agent could not complete this request.',
    );
    expect(readText(run([submitted, status('TASK_STATE_INPUT_REQUIRED')], inLanguage('ja')))).toBe(
      'エージェントが続けるには追加の情報が必要です。返信してください。',
    );
    expect(readText(run([submitted, status('TASK_STATE_WORKING', 'Which region?'), status('TASK_STATE_INPUT_REQUIRED')]))).toBe('Which region?');
    expect(readText(run([submitted, status('TASK_STATE_FAILED', 'quota exceeded')]))).toBe('quota exceeded');
    // Device commands are an answer; a plain 0.2.5 caller reads a failure on its status.
    expect(readText(run([submitted, status('TASK_STATE_INPUT_REQUIRED', undefined, { metadata: { commands: [{ name: 'flash' }] } })]))).toBe('');
    expect(readText(run([submitted, status('TASK_STATE_FAILED')], options(spec)))).toBe('');
  });

  it('a turn canceled, or ended asking for credentials Bailian cannot give, without a word: told so, after what the agent said', () => {
    const started = status('TASK_STATE_WORKING', 'Starting the deployment.');
    expect(readText(run([submitted, started, status('TASK_STATE_CANCELED')]))).toBe(
      'Starting the deployment.\nThe request was canceled before it was finished.',
    );
    expect(readText(run([submitted, status('TASK_STATE_CANCELED')], inLanguage('zh')))).toBe('本次请求已取消，未能完成。');
    expect(readText(run([submitted, started, status('TASK_STATE_AUTH_REQUIRED')]))).toBe(
      'Starting the deployment.\nThe agent could not complete this request.',
    );
    // Said why: the agent's words alone; a plain 0.2.5 caller reads the state itself.
    expect(readText(run([submitted, status('TASK_STATE_CANCELED', 'Canceled at your request.')]))).toBe('Canceled at your request.');
    expect(readText(run([submitted, started, status('TASK_STATE_CANCELED')], options(spec)))).toBe('Starting the deployment.');
  });

  it('a turn that only ran tools and waits (as every iac-code turn ends) names the tools it ran, once each', () => {
    const tool = (name: string, state: string) =>
      status('TASK_STATE_WORKING', undefined, { metadata: { iac_code: { tool: { status: state, name } } } });
    const delta = status('TASK_STATE_WORKING', undefined, { metadata: { iac_code: { tool: { status: 'input_delta', toolUseId: 'tu' } } } });
    const ran = (name: string) => [tool(name, 'started'), delta, tool(name, 'completed')];
    const turn = [submitted, ...ran('write_file'), ...ran('bash'), ...ran('write_file'), status('TASK_STATE_INPUT_REQUIRED')];
    expect(readText(run(turn))).toBe('The agent ran write_file, bash and is waiting for your next message.');
    expect(readText(run(turn, inLanguage('zh')))).toBe('智能体已运行 write_file、bash，正在等待你的下一条消息。');
    const many = ['a', 'b', 'c', 'd', 'e', 'f'].flatMap((name) => ran(name));
    expect(readText(run([submitted, ...many, status('TASK_STATE_INPUT_REQUIRED')]))).toBe(
      'The agent ran a, b, c, d, e, … and is waiting for your next message.',
    );
    // What the agent said after its tools is its answer; nothing is added.
    expect(readText(run([submitted, ...ran('bash'), status('TASK_STATE_WORKING', 'Deployed.'), status('TASK_STATE_INPUT_REQUIRED')]))).toBe(
      'Deployed.',
    );
  });

  it('a tool the user refused (or that failed) is not said to have run', () => {
    const tool = (name: string, state: string) =>
      status('TASK_STATE_WORKING', undefined, { metadata: { iac_code: { tool: { status: state, name } } } });
    const refused = [submitted, tool('ros_create_stack', 'started'), tool('ros_create_stack', 'failed'), status('TASK_STATE_INPUT_REQUIRED')];
    expect(readText(run(refused))).toBe('The agent could not run ros_create_stack and is waiting for your next message.');
    expect(readText(run(refused, inLanguage('zh')))).toBe('智能体未能运行 ros_create_stack，正在等待你的下一条消息。');
    // Started and never ended: neither ran nor failed.
    expect(readText(run([submitted, tool('bash', 'started'), status('TASK_STATE_INPUT_REQUIRED')]))).toBe(
      'The agent needs more information to go on. Please reply.',
    );
  });
});
