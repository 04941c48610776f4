/**
 * Agents that stream their answer as working messages of their own, each with a new id (a2a-python's
 * `new_agent_text_message` per chunk, ADK's partial events), split words, numbers and code anywhere; others
 * send whole progress messages. A Bailian user must read each as the agent wrote it: tokens joined as they
 * came, no word lost because it was said before, whole messages on lines of their own, and the whole answer
 * sent again at the end not shown twice.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { artifact, readText, run, status, submitted, tool } from './support.js';

const working = (texts: readonly string[]): StreamResponse[] => texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `w${at}`));
const TOKENS = ['Steps:\n', '1', '. ', 'Create', ' a VPC', '\n', '2', '. ', 'Create', ' a vSwitch', '\n', '```', 'yaml\nType: VPC\n', '```'];
const ANSWER = TOKENS.join('');

describe("an agent's running text in messages of their own", () => {
  it('tokens read as the agent wrote them, once, however the answer is sent again at the end', () => {
    expect(readText(run([submitted, ...working(TOKENS), status('TASK_STATE_COMPLETED')]))).toBe(ANSWER);
    expect(readText(run([submitted, ...working(TOKENS), status('TASK_STATE_COMPLETED', ANSWER, {}, 'final')]))).toBe(ANSWER);
    expect(readText(run([submitted, ...working(TOKENS), artifact('answer', [{ text: ANSWER }]), status('TASK_STATE_COMPLETED')]))).toBe(ANSWER);
    // Laid out its own way the second time (white space only): still the same answer.
    const relaidOut = ANSWER.replace('Steps:\n', 'Steps: \n\n');
    expect(readText(run([submitted, ...working(TOKENS), status('TASK_STATE_COMPLETED', relaidOut, {}, 'final')]))).toBe(ANSWER);
  });

  it('a word or a sentence said again is not a repeat: every one is read', () => {
    expect(readText(run([submitted, ...working(['ha', 'ha', '!']), status('TASK_STATE_COMPLETED')]))).toBe('haha!');
    // Also with a line break of its own between (a blank piece is not a piece a repeat could start at).
    expect(readText(run([submitted, ...working(['All tests passed.', '\n', 'All tests passed.']), status('TASK_STATE_COMPLETED')]))).toBe(
      'All tests passed.\nAll tests passed.',
    );
    const checks = ['Step 1: check.', 'OK.', 'Step 2: deploy.', 'OK.', 'Done.'];
    expect(readText(run([submitted, ...working(checks), status('TASK_STATE_COMPLETED')]))).toBe(checks.join('\n'));
  });

  it('whole progress messages each start a line; Chinese sentences carry on as Chinese is written', () => {
    const progress = ['Looking up the exchange rates...', 'Processing the exchange rates..', 'Searching flights', 'Found 3 flights'];
    expect(readText(run([submitted, ...working(progress), status('TASK_STATE_COMPLETED', '1 USD = 7.2 CNY', {}, 'final')]))).toBe(
      [...progress, '1 USD = 7.2 CNY'].join('\n'),
    );
    expect(readText(run([submitted, ...working(['我来', '帮你', '部署', '。', '首先', '创建 ', 'VPC', '。']), status('TASK_STATE_COMPLETED')]))).toBe(
      '我来帮你部署。首先创建 VPC。',
    );
    expect(readText(run([submitted, ...working(['172', '.', '16', '.', '0', '.', '0', '/12']), status('TASK_STATE_COMPLETED')]))).toBe(
      '172.16.0.0/12',
    );
  });

  it('inside code an identifier split between tokens stays one identifier: no line starts there', () => {
    const code = ['Use this:\n```python\nclass My', 'Vpc(Base):\n    return self.vpc', 'Name\n', '```', '\nThen run', ' `get', 'User', 'Name`', '.'];
    expect(readText(run([submitted, ...working(code), status('TASK_STATE_COMPLETED')]))).toBe(code.join(''));
    // A fence split between tokens, and a tilde fence, still open a block; after it closes, prose rules again.
    const split = ['``', '`ts\nconst a = get', 'User();\n`', '``\nSearching flights', 'Found 3 flights'];
    expect(readText(run([submitted, ...working(split), status('TASK_STATE_COMPLETED')]))).toBe(
      '```ts\nconst a = getUser();\n```\nSearching flights\nFound 3 flights',
    );
    const tilde = ['~~~\nmy', 'Var = 1\n~~~\n', 'All done', 'Next steps'];
    expect(readText(run([submitted, ...working(tilde), status('TASK_STATE_COMPLETED')]))).toBe('~~~\nmyVar = 1\n~~~\nAll done\nNext steps');
  });

  it('a lone backtick in prose opens no code: later messages start their lines as prose does', () => {
    const stray = ['Press the ` key', 'Searching flights', 'Found 3 flights'];
    expect(readText(run([submitted, ...working(stray), status('TASK_STATE_COMPLETED')]))).toBe('Press the ` key\nSearching flights\nFound 3 flights');
    // An inline span with white space in it is still code: an identifier split there stays one.
    const spaced = ['Run ', '`new My', 'Vpc()`', ' now.', ' Press `', ' then', 'Enter'];
    expect(readText(run([submitted, ...working(spaced), status('TASK_STATE_COMPLETED')]))).toBe('Run `new MyVpc()` now. Press ` then\nEnter');
  });

  it('the last token on the status that ends the turn, under the running id, goes on where the tokens left off', () => {
    const under = (text: string) => status('TASK_STATE_WORKING', text, {}, 'm');
    expect(readText(run([submitted, under('The answer '), under('is 42'), status('TASK_STATE_COMPLETED', '.', {}, 'm')]))).toBe('The answer is 42.');
    expect(readText(run([submitted, under('Deploy'), under('ing the '), status('TASK_STATE_COMPLETED', 'stack', {}, 'm')]))).toBe(
      'Deploying the stack',
    );
    // A failure's reason, or a new sentence, under that id still starts a line (iac-code's provider error).
    expect(readText(run([submitted, under('正在校验模板'), status('TASK_STATE_FAILED', '模型请求失败', {}, 'm')]))).toBe(
      '正在校验模板\n模型请求失败',
    );
    const retryable = { metadata: { iac_code: { error: { retryable: true } } } };
    expect(readText(run([submitted, under('正在校验模板'), status('TASK_STATE_INPUT_REQUIRED', 'Model request failed', retryable, 'm')]))).toBe(
      '正在校验模板\nModel request failed',
    );
    expect(readText(run([submitted, under('Let me check.'), status('TASK_STATE_INPUT_REQUIRED', 'A temporary error occurred.', {}, 'm')]))).toBe(
      'Let me check.\nA temporary error occurred.',
    );
  });

  it('a closing message under the running id that is new text starts a line, in Chinese and in lower case too', () => {
    // Status updates sharing one messageId, then the final status with that id: new words, not the last token.
    const under = (text: string) => status('TASK_STATE_WORKING', text, {}, 'm');
    const closing = (text: string) => status('TASK_STATE_COMPLETED', text, {}, 'm');
    expect(readText(run([submitted, under('正在'), under('部署'), closing('部署完成。')]))).toBe('正在部署\n部署完成。');
    expect(readText(run([submitted, under('テンプレートを'), under('確認中'), closing('確認しました。')]))).toBe(
      'テンプレートを確認中\n確認しました。',
    );
    expect(readText(run([submitted, under('Checking the '), under('template'), closing('Looks good.')]))).toBe('Checking the template\nLooks good.');
    // A lower-case piece right after a Latin letter is a model's word piece, not a closing message's new words.
    expect(readText(run([submitted, under('The stack is deploy'), closing('ed.')]))).toBe('The stack is deployed.');
    // After the end of a sentence nothing finishes it: Chinese too.
    expect(readText(run([submitted, under('正在部署。'), closing('部署完成。')]))).toBe('正在部署。\n部署完成。');
    // The last token still goes on where the tokens left off: after a blank, with punctuation, inside a number or code.
    expect(readText(run([submitted, under('答案是'), closing('。')]))).toBe('答案是。');
    expect(readText(run([submitted, under('The answer is 4'), closing('2.')]))).toBe('The answer is 42.');
    expect(readText(run([submitted, under('The CIDR is 172.16.0.'), closing('0/12')]))).toBe('The CIDR is 172.16.0.0/12');
    expect(readText(run([submitted, under('```python\nclass My'), closing('Vpc:\n    pass\n```')]))).toBe('```python\nclass MyVpc:\n    pass\n```');
  });

  it('a closing message under the running id that says that message again, whole or its end: its words once', () => {
    const under = (text: string) => status('TASK_STATE_WORKING', text, {}, 'm');
    const closing = (text: string) => status('TASK_STATE_COMPLETED', text, {}, 'm');
    // The whole message again, however short: the same id says it is that message.
    expect(readText(run([submitted, under('正在'), under('部署'), closing('正在部署')]))).toBe('正在部署');
    expect(readText(run([submitted, under('正在'), under('部署'), closing('正在部署完成。')]))).toBe('正在部署完成。');
    expect(readText(run([submitted, under('OK'), closing('OK, done.')]))).toBe('OK, done.');
    expect(readText(run([submitted, under('正在'), under('部署。'), closing('正在部署。请稍候。')]))).toBe('正在部署。\n请稍候。');
    // Only its last sentence again (the answer after the agent's progress, sent on its own), or that sentence finished.
    const zh = [under('资源已创建。'), under('部署'), under('完成。')];
    expect(readText(run([submitted, ...zh, closing('部署完成。')]))).toBe('资源已创建。部署完成。');
    expect(readText(run([submitted, under('资源已创建。'), under('部署完成'), closing('部署完成。')]))).toBe('资源已创建。部署完成。');
    const en = [under('The VPC is ready. '), under('The stack is '), under('deployed.')];
    expect(readText(run([submitted, ...en, closing('The stack is deployed.')]))).toBe('The VPC is ready. The stack is deployed.');
    expect(readText(run([submitted, ...en, closing('The stack is deployed. Anything else?')]))).toBe(
      'The VPC is ready. The stack is deployed.\nAnything else?',
    );
    // A sentence that only starts as the last one ended is new words (a word or two said again).
    expect(readText(run([submitted, under('部署中。完成'), closing('完成了吗？')]))).toBe('部署中。完成\n完成了吗？');
  });

  it('a tool call, a question or a failure still starts a line of its own', () => {
    expect(readText(run([submitted, ...working(['Writing', ' main']), tool, ...working(['.tf', ' done']), status('TASK_STATE_COMPLETED')]))).toBe(
      'Writing main\n.tf done',
    );
    expect(readText(run([submitted, ...working(['Plan', ' ready']), status('TASK_STATE_INPUT_REQUIRED', 'which region?', {}, 'ask')]))).toBe(
      'Plan ready\nwhich region?',
    );
    expect(readText(run([submitted, ...working(['Deploy', 'ing']), status('TASK_STATE_FAILED', 'quota exceeded', {}, 'why')]))).toBe(
      'Deploying\nquota exceeded',
    );
  });

  it('a question after the whole answer sent again: the question only', () => {
    const asked = `${ANSWER}\nWhich region?`;
    expect(readText(run([submitted, ...working(TOKENS), status('TASK_STATE_INPUT_REQUIRED', asked, {}, 'ask')]))).toBe(`${ANSWER}\nWhich region?`);
    const inline = 'Hello world. How are you? Which region?';
    expect(
      readText(
        run([submitted, ...working(['Hello', ' world', '.', ' How', ' are', ' you', '?']), status('TASK_STATE_INPUT_REQUIRED', inline, {}, 'ask')]),
      ),
    ).toBe('Hello world. How are you?\nWhich region?');
    // The same message id for the chunks and the question that restates them (as iac-code keeps one id a turn).
    const sameId = [
      status('TASK_STATE_WORKING', 'Here is your plan.', {}, 'x'),
      status('TASK_STATE_INPUT_REQUIRED', 'Here is your plan. Shall I proceed?', {}, 'x'),
    ];
    expect(readText(run([submitted, ...sameId]))).toBe('Here is your plan.\nShall I proceed?');
  });

  it('the answer sent whole at the end, finishing a word or sentence the tokens broke off in: the rest on the same line', () => {
    const end = (text: string): StreamResponse => status('TASK_STATE_COMPLETED', text, {}, 'final');
    expect(readText(run([submitted, ...working(['The answer ', 'is 42']), end('The answer is 42.')]))).toBe('The answer is 42.');
    expect(readText(run([submitted, ...working(['The answer ', 'is forty']), end('The answer is forty-two.')]))).toBe('The answer is forty-two.');
    // The tokens ended with a blank: it is not said twice.
    expect(readText(run([submitted, ...working(['The answer ', 'is ']), end('The answer is 42.')]))).toBe('The answer is 42.');
    expect(readText(run([submitted, ...working(['Hello world. ', 'How']), end('Hello world. How are you?')]))).toBe('Hello world. How are you?');
    expect(readText(run([submitted, ...working(['我来帮你', '创建一个']), end('我来帮你创建一个VPC。')]))).toBe('我来帮你创建一个VPC。');
    // After a tool call the restated text's sentence is over: what is added starts a line.
    expect(readText(run([submitted, ...working(['Writing the', ' template']), tool, end('Writing the template now.')]))).toBe(
      'Writing the template\nnow.',
    );
  });

  it('a progress line, then the answer token by token, then the answer whole again (as ADK sends it): the answer once', () => {
    const progress = status('TASK_STATE_WORKING', 'Let me check the weather.', {}, 'progress');
    const tokens = ['The', ' weather', ' in', ' Hangzhou', ' is', ' sunny', ', 25°C', ' today.'];
    const answer = tokens.join('');
    const expected = `Let me check the weather.\n${answer}`;
    for (const again of [
      status('TASK_STATE_COMPLETED', answer, {}, 'final'),
      status('TASK_STATE_WORKING', answer, {}, 'whole'),
      artifact('answer', [{ text: answer }]),
    ]) {
      expect(readText(run([submitted, progress, ...working(tokens), again, status('TASK_STATE_COMPLETED')]))).toBe(expected);
    }
    // Asking something after it: only the question is new.
    const asked = status('TASK_STATE_INPUT_REQUIRED', `${answer} Anything else?`, {}, 'ask');
    expect(readText(run([submitted, progress, ...working(tokens), asked]))).toBe(`${expected}\nAnything else?`);
    // Chinese runs on after a full stop, so the answer is the end of one line: the same.
    const zh = ['杭州', '今天', '晴，', '25°C。'];
    const zhProgress = status('TASK_STATE_WORKING', '让我查一下天气。', {}, 'progress');
    expect(readText(run([submitted, zhProgress, ...working(zh), status('TASK_STATE_COMPLETED', zh.join(''), {}, 'final')]))).toBe(
      '让我查一下天气。杭州今天晴，25°C。',
    );
  });

  it('messages that each hold the whole text so far read as that text once it is more than a word', () => {
    const cumulative = ['Deploying the', 'Deploying the VPC', 'Deploying the VPC now.'];
    expect(readText(run([submitted, ...working(cumulative), status('TASK_STATE_COMPLETED')]))).toBe('Deploying the VPC now.');
  });
});

describe('an artifact sent again whole (append: false, the same id)', () => {
  it('grown: only what it adds; rewritten: on a line of its own (sent text cannot be taken back)', () => {
    const snapshot = (text: string): StreamResponse => artifact('report', [{ text }]);
    expect(readText(run([submitted, snapshot('Hello'), snapshot('Hello world'), snapshot('Hello world!'), status('TASK_STATE_COMPLETED')]))).toBe(
      'Hello world!',
    );
    expect(readText(run([submitted, snapshot('Hello'), snapshot('Goodbye'), status('TASK_STATE_COMPLETED')]))).toBe('Hello\nGoodbye');
  });
});

describe('a Task that closes a streamed turn', () => {
  const closing = (artifacts: Array<{ artifactId: string; parts: Array<{ text: string }> }>): StreamResponse => ({
    task: {
      id: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'done', role: 'ROLE_AGENT', parts: [{ text: 'All done.' }] } },
      artifacts,
    },
  });

  it('shows the artifacts it carries, and not again those the stream showed', () => {
    const template = { artifactId: 'tpl', parts: [{ text: 'THE TEMPLATE BODY' }] };
    expect(readText(run([submitted, ...working(['Starting...']), closing([template])]))).toBe('Starting...\nTHE TEMPLATE BODY\nAll done.');
    expect(readText(run([submitted, ...working(['Starting...']), artifact('tpl', template.parts), closing([template])]))).toBe(
      'Starting...\nTHE TEMPLATE BODY\nAll done.',
    );
  });
});
