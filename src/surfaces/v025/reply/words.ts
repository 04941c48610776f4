import { answeredHttpStatus, GATEWAY_FAILURES, type GatewayFailure } from '../../../model/index.js';

/**
 * The facade's own words, the few a Bailian user reads that no agent wrote: how a pipeline step, a
 * candidate and a template are introduced, how to answer a question, the permission prompt's defaults,
 * and why the gateway ended a turn. A person who writes Chinese should not be told "Reply with a number." in
 * English between the agent's Chinese sentences, so each turn picks its language (turn-language.ts).
 */
export type FacadeLanguage = 'en' | 'zh' | 'ja';

export const FACADE_LANGUAGES: readonly FacadeLanguage[] = ['en', 'zh', 'ja'];

export interface FacadeWords {
  readonly language: FacadeLanguage;
  /** A pipeline step's heading: `Step 2/5: Architecture planning`; without its place when iac-code gave none. */
  step(name: string, place: { index: number; total: number } | undefined): string;
  /** A heading of a step run again after a rollback. */
  attempt(heading: string, attempt: number): string;
  /** The line over a candidate's block: `Candidate 1 (name):`, numbered from 1 as the options are. */
  candidate(number: number | undefined, name: string | undefined): string;
  template(url: string): string;
  /** A file named nowhere (no file name, none at the end of its URL): what its line or its block is headed with. */
  file: string;
  /**
   * A file streamed in chunks that stopped before its end (the turn ended first, or its bytes end inside a
   * character): said once after the part shown, in place of a description that would read as a second file.
   */
  fileCutOff(name: string): string;
  /**
   * iac-code's pipeline steps by id, named as iac-code's own translations name them (its envelopes carry
   * the id alone); an unknown id is shown made readable (`solution_planning` → `Solution planning`).
   */
  stepNames: Readonly<Record<string, string>>;
  /** A step iac-code named by nothing. */
  nextStep: string;
  replyWithChoice: string;
  replyWithNumber: string;
  replyWithNumberOrWords: string;
  /** iac-code refused the last answer and said no more. */
  answerNotUsable: string;
  unnamedOption: string;
  /** The answers a permission prompt takes: `Reply "Allow once" or "Deny".` */
  replyOneOf(labels: readonly string[]): string;
  /** A permission prompt iac-code sent without its question. */
  allowTool(tool: string | undefined): string;
  /** Names of permission options iac-code sent without a label. */
  optionLabels: Readonly<Record<string, string>>;
  /** A prompt asked again because the reply picked none of its options. */
  askedAgain(prompt: string): string;
  /** The upstream's stream stopped while the turn was still running. */
  endedEarly: string;
  /**
   * Where the recovery of a pipeline turn whose stream broke could not tell what iac-code said meanwhile
   * (the task keeps only its latest envelopes: ../turn-pipeline.ts): said at the place of the gap.
   */
  pipelineWordsLost: string;
  /** A turn that failed (or was rejected) without a word of why. */
  failedSilently: string;
  /** A turn the agent canceled without a word (the user's cancel, or its own). */
  canceledSilently: string;
  /** A turn that waits for the user's answer and said nothing at all. */
  waitsSilently: string;
  /** A turn that completed and said nothing at all (no message, no artifact, no device command). */
  completedSilently: string;
  /** A turn that ran tools, said nothing, and waits for the user's next message (iac-code ends every turn so). */
  ranToolsThenWaits(tools: readonly string[]): string;
  /** The same, for tools the agent could not run (the user refused one, or it failed). */
  couldNotRunThenWaits(tools: readonly string[]): string;
  /** A message sent while the conversation's last turn still runs (the user hung up on it, or sent again). */
  turnInProgress: string;
  /**
   * A turn the gateway's shutdown (a rollout) cut while the agent goes on with it: not a failure to try again,
   * which would run the turn twice. The user's next message in the conversation shows its rest (../cut-turns.ts).
   */
  turnCutByShutdown: string;
  /** Opens the rest of a cut turn, shown in answer to the user's next message, which is therefore not sent to the agent. */
  cutTurnRest: string;
  /**
   * A turn the shutdown cut before the agent's first word, its message already sent: the agent may be at work on
   * it, so trying again may run it twice. The task is known and noted: the next message shows its rest.
   */
  turnCutBeforeReply: string;
  /** The same, the task unknown (a new task whose id never came back): the user checks with the agent before sending it again. */
  turnCutUnanswered: string;
  /** The agent answered an HTTP error status instead of A2A (a crash's 500, a proxy's 502). */
  upstreamAnswered(status: string): string;
  /** The gateway's own reasons a turn failed (a time-out, an agent it cannot reach, a shutdown). */
  failures: Readonly<Record<GatewayFailure, string>>;
}

/** A status that passes with time (a 5xx, a 429), so trying again later is worth saying; a 404 or a 400 does not. */
const passes = (status: string): boolean => status.startsWith('5') || status === '429';

/** `a、b或c`: a list as Chinese and Japanese write it, the last item joined by `last`. */
const listed = (items: readonly string[], separator: string, last: string): string =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(separator)}${last}${items.at(-1)!}`;

/** Tools named in one line: the first few, then an ellipsis (a long turn may run dozens). */
const shortList = (items: readonly string[], most = 5): readonly string[] => (items.length > most ? [...items.slice(0, most), '…'] : items);

const EN: FacadeWords = {
  language: 'en',
  step: (name, place) => (place ? `Step ${place.index}/${place.total}: ${name}` : `Step: ${name}`),
  attempt: (heading, attempt) => `${heading} (attempt ${attempt})`,
  candidate: (number, name) => {
    const numbered = number === undefined ? 'Candidate' : `Candidate ${number}`;
    return name ? `${numbered} (${name}):` : `${numbered}:`;
  },
  template: (url) => `Template: ${url}`,
  file: 'file',
  fileCutOff: (name) => `(${name} was cut off: the agent did not finish it)`,
  stepNames: {
    intent_parsing: 'Intent parsing',
    architecture_planning: 'Architecture planning',
    evaluate_candidates: 'Evaluate candidates',
    evaluate_candidate: 'Evaluate candidate',
    confirm_and_select: 'Confirm and select',
    deploying: 'Deploying',
    template_generating: 'Template generation',
    reviewing: 'Review',
    cost_estimating: 'Cost estimation',
  },
  nextStep: 'Next step',
  replyWithChoice: 'Reply with your choice.',
  replyWithNumber: 'Reply with a number.',
  replyWithNumberOrWords: 'Reply with a number, or in your own words.',
  answerNotUsable: 'That answer could not be used.',
  unnamedOption: '(an option without a name)',
  replyOneOf: (labels) => `Reply ${labels.map((label) => `"${label}"`).join(' or ')}.`,
  allowTool: (tool) => `Allow ${tool ?? 'the tool'} to run?`,
  optionLabels: { allow_once: 'Allow once', allow_always: 'Always allow', deny: 'Deny' },
  askedAgain: (prompt) => `An answer is needed first. ${prompt}`,
  endedEarly: 'The upstream agent ended the stream before the turn finished',
  pipelineWordsLost: "(Part of the agent's reply may be missing here: the connection broke.)",
  failedSilently: 'The agent could not complete this request.',
  canceledSilently: 'The request was canceled before it was finished.',
  waitsSilently: 'The agent needs more information to go on. Please reply.',
  completedSilently: 'The agent finished without a reply.',
  ranToolsThenWaits: (tools) => `The agent ran ${shortList(tools).join(', ')} and is waiting for your next message.`,
  couldNotRunThenWaits: (tools) => `The agent could not run ${shortList(tools).join(', ')} and is waiting for your next message.`,
  turnInProgress: 'The agent is still working on your last message. Please wait for it to finish, then try again.',
  turnCutByShutdown:
    'The connection was interrupted (the gateway restarted), but the agent is still working on your request. Send any message in this conversation (for example "continue") to see the result; there is no need to send your request again.',
  cutTurnRest:
    'Here is the rest of the reply to your previous message, whose connection was interrupted. The message you just sent was not passed to the agent; if you still need it, send it again once this reply has finished.',
  turnCutBeforeReply:
    'The connection was interrupted (the gateway restarted) before the agent replied. Your request may have reached the agent, which may still be working on it. Send any message in this conversation (for example "continue") to see where it stands before you send your request again.',
  turnCutUnanswered:
    'The connection was interrupted (the gateway restarted) before the agent replied. Your request may have reached the agent, which may still be working on it. Ask the agent about its progress first (for example "What is the progress?"), and send your request again only if it did not get it, so that it does not run twice.',
  upstreamAnswered: (status) => `The upstream agent answered HTTP ${status}`,
  failures: GATEWAY_FAILURES,
};

const ZH: FacadeWords = {
  language: 'zh',
  step: (name, place) => (place ? `步骤 ${place.index}/${place.total}：${name}` : `步骤：${name}`),
  attempt: (heading, attempt) => `${heading}（第 ${attempt} 次尝试）`,
  candidate: (number, name) => {
    const numbered = number === undefined ? '候选方案' : `候选方案 ${number}`;
    return name ? `${numbered}（${name}）：` : `${numbered}：`;
  },
  template: (url) => `模板：${url}`,
  file: '文件',
  fileCutOff: (name) => `（${name} 被截断：智能体没有写完该文件）`,
  stepNames: {
    intent_parsing: '意图解析',
    architecture_planning: '架构规划',
    evaluate_candidates: '评估候选方案',
    evaluate_candidate: '评估候选方案',
    confirm_and_select: '确认并选择',
    deploying: '部署执行',
    template_generating: '模板生成',
    reviewing: '审查',
    cost_estimating: '成本估算',
  },
  nextStep: '下一步',
  replyWithChoice: '请回复您的选择。',
  replyWithNumber: '请回复编号。',
  replyWithNumberOrWords: '请回复编号，或直接用文字说明。',
  answerNotUsable: '无法识别该回答。',
  unnamedOption: '（未命名的选项）',
  replyOneOf: (labels) =>
    `请回复${listed(
      labels.map((label) => `“${label}”`),
      '、',
      '或',
    )}。`,
  allowTool: (tool) => `是否允许运行${tool ? ` ${tool}` : '该工具'}？`,
  optionLabels: { allow_once: '允许一次', allow_always: '始终允许', deny: '拒绝' },
  askedAgain: (prompt) => `请先回答这个问题。${prompt}`,
  endedEarly: '上游智能体在本轮对话结束前中断了输出',
  pipelineWordsLost: '（连接中断，此处可能缺少智能体的部分回复。）',
  failedSilently: '智能体未能完成本次请求。',
  canceledSilently: '本次请求已取消，未能完成。',
  waitsSilently: '智能体需要更多信息才能继续，请回复。',
  completedSilently: '智能体已完成，但没有回复任何内容。',
  ranToolsThenWaits: (tools) => `智能体已运行 ${shortList(tools).join('、')}，正在等待你的下一条消息。`,
  couldNotRunThenWaits: (tools) => `智能体未能运行 ${shortList(tools).join('、')}，正在等待你的下一条消息。`,
  turnInProgress: '智能体仍在处理你的上一条消息，请等它完成后再试。',
  turnCutByShutdown: '连接已中断（网关正在重启），但智能体仍在继续处理你的请求。请在本对话中发送任意消息（例如“继续”）查看结果，无需重新提交请求。',
  cutTurnRest: '以下是你上一条消息在连接中断后的后续回复。你刚发送的消息没有转给智能体；如仍需要，请在这条回复结束后重新发送。',
  turnCutBeforeReply:
    '连接已中断（网关正在重启），智能体尚未回复。你的请求可能已送达智能体，它可能仍在处理。请先在本对话中发送任意消息（例如“继续”）查看进展，再决定是否重新提交请求。',
  turnCutUnanswered:
    '连接已中断（网关正在重启），智能体尚未回复。你的请求可能已送达智能体，它可能仍在处理。请先询问智能体的进度（例如“进度如何？”），确认它没有收到后再重新提交请求，以免重复执行。',
  upstreamAnswered: (status) => `上游智能体出错（HTTP ${status}）${passes(status) ? '，请稍后重试' : ''}`,
  failures: {
    upstreamTimedOut: '上游智能体响应超时',
    upstreamUnavailable: '暂时无法连接上游智能体',
    upstreamCallAborted: '对上游智能体的调用已中止',
    abortedOrTimedOut: '对上游智能体的调用已中止或超时',
    shuttingDown: '网关正在关闭，请稍后重试',
    internal: '网关内部错误，请稍后重试',
    registryOutOfReach: '网关暂时无法记录任务，请稍后重试',
  },
};

const JA: FacadeWords = {
  language: 'ja',
  step: (name, place) => (place ? `ステップ ${place.index}/${place.total}：${name}` : `ステップ：${name}`),
  attempt: (heading, attempt) => `${heading}（${attempt} 回目）`,
  candidate: (number, name) => {
    const numbered = number === undefined ? '候補' : `候補 ${number}`;
    return name ? `${numbered}（${name}）：` : `${numbered}：`;
  },
  template: (url) => `テンプレート：${url}`,
  file: 'ファイル',
  fileCutOff: (name) => `（${name} は途中で切れています：エージェントが書き終えていません）`,
  stepNames: {
    intent_parsing: '意図解析',
    architecture_planning: 'アーキテクチャ計画',
    evaluate_candidates: '候補の評価',
    evaluate_candidate: '候補を評価',
    confirm_and_select: '確認と選択',
    deploying: 'デプロイ',
    template_generating: 'テンプレート生成',
    reviewing: 'レビュー',
    cost_estimating: 'コスト見積もり',
  },
  nextStep: '次のステップ',
  replyWithChoice: '選択肢を返信してください。',
  replyWithNumber: '番号で返信してください。',
  replyWithNumberOrWords: '番号、または文章で返信してください。',
  answerNotUsable: 'その回答は受け付けられませんでした。',
  unnamedOption: '（名前のない選択肢）',
  replyOneOf: (labels) =>
    `${listed(
      labels.map((label) => `「${label}」`),
      '、',
      'または',
    )}と返信してください。`,
  allowTool: (tool) => `${tool ?? 'このツール'}の実行を許可しますか？`,
  optionLabels: { allow_once: '今回のみ許可', allow_always: '常に許可', deny: '拒否' },
  askedAgain: (prompt) => `先にこの質問に答えてください。${prompt}`,
  endedEarly: '上流のエージェントの応答が、このやり取りの完了前に途切れました',
  pipelineWordsLost: '（接続が途切れたため、ここでエージェントの応答の一部が欠けている可能性があります。）',
  failedSilently: 'エージェントはこのリクエストを完了できませんでした。',
  canceledSilently: 'このリクエストは完了する前にキャンセルされました。',
  waitsSilently: 'エージェントが続けるには追加の情報が必要です。返信してください。',
  completedSilently: 'エージェントは返信せずに処理を終了しました。',
  ranToolsThenWaits: (tools) => `エージェントは ${shortList(tools).join('、')} を実行し、次のメッセージを待っています。`,
  couldNotRunThenWaits: (tools) => `エージェントは ${shortList(tools).join('、')} を実行できず、次のメッセージを待っています。`,
  turnInProgress: 'エージェントはまだ前のメッセージを処理しています。終わってからもう一度お試しください。',
  turnCutByShutdown:
    '接続が中断されました（ゲートウェイの再起動）が、エージェントはリクエストの処理を続けています。結果を確認するには、この会話で任意のメッセージ（例：「続けて」）を送信してください。リクエストを送り直す必要はありません。',
  cutTurnRest:
    '以下は、接続が中断された前のメッセージへの返信の続きです。今送信したメッセージはエージェントに渡していません。必要な場合は、この返信が終わってからもう一度送信してください。',
  turnCutBeforeReply:
    '接続が中断されました（ゲートウェイの再起動）。エージェントはまだ返信していませんが、リクエストは届いていて処理中の可能性があります。リクエストを送り直す前に、この会話で任意のメッセージ（例：「続けて」）を送信して状況を確認してください。',
  turnCutUnanswered:
    '接続が中断されました（ゲートウェイの再起動）。エージェントはまだ返信していませんが、リクエストは届いていて処理中の可能性があります。二重に実行されないよう、まずエージェントに進捗を尋ね（例：「進捗はどうですか？」）、届いていなかった場合にのみ送り直してください。',
  upstreamAnswered: (status) =>
    `上流のエージェントがエラーを返しました（HTTP ${status}）${passes(status) ? '。しばらくしてからお試しください。' : ''}`,
  failures: {
    upstreamTimedOut: '上流のエージェントが時間内に応答しませんでした',
    upstreamUnavailable: '上流のエージェントに接続できません',
    upstreamCallAborted: '上流のエージェントへの呼び出しが中止されました',
    abortedOrTimedOut: '上流のエージェントへの呼び出しが中止されたか、時間切れになりました',
    shuttingDown: 'ゲートウェイを停止しています。しばらくしてからもう一度お試しください',
    internal: 'ゲートウェイで内部エラーが発生しました。しばらくしてからもう一度お試しください',
    registryOutOfReach: 'ゲートウェイは現在タスクを記録できません。しばらくしてからもう一度お試しください',
  },
};

const WORDS: Readonly<Record<FacadeLanguage, FacadeWords>> = { en: EN, zh: ZH, ja: JA };

export const facadeWords = (language: FacadeLanguage): FacadeWords => WORDS[language];

/** Which of the gateway's own reasons `reason` is; the detail after its colon (`Upstream agent timed out: no event within 30000 ms`) is the operator's. */
const gatewayFailure = (reason: string): GatewayFailure | undefined =>
  (Object.keys(GATEWAY_FAILURES) as GatewayFailure[]).find(
    (failure) => reason === GATEWAY_FAILURES[failure] || reason.startsWith(`${GATEWAY_FAILURES[failure]}: `),
  );

export const isGatewayFailure = (reason: string): boolean => gatewayFailure(reason) !== undefined || answeredHttpStatus(reason) !== undefined;

/** A reason the gateway gave for a failed turn, in the turn's language when it is one of the gateway's own. */
export function failureReason(words: FacadeWords, reason: string): string {
  if (words.language === 'en') return reason;
  const known = gatewayFailure(reason);
  if (known) return words.failures[known];
  const status = answeredHttpStatus(reason);
  return status ? words.upstreamAnswered(status) : reason;
}

/**
 * Why a turn that had begun failed, as its user reads it: one the gateway's shutdown cut goes on at the agent, so
 * its user is told how to read its end rather than to try again; any other reason as failureReason tells it.
 */
export function failedTurnReason(words: FacadeWords, reason: string): string {
  return gatewayFailure(reason) === 'shuttingDown' ? words.turnCutByShutdown : failureReason(words, reason);
}

/** Every name the facade gives a permission option, in any language: a reply may use any of them. */
export function optionNames(optionId: string): string[] {
  return FACADE_LANGUAGES.flatMap((language) => WORDS[language].optionLabels[optionId] ?? []);
}

/** A step's name as this language shows it: iac-code's own where known, else its id made readable. */
export function stepName(words: FacadeWords, id: string): string {
  const known = words.stepNames[id];
  if (known) return known;
  const spaced = id.replace(/[_-]+/g, ' ').trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
