import type { FacadeWords } from './words.js';
import { listed, passes, shortList } from './word-lists.js';

/** The facade's words in Japanese (words.ts says what each is for). */
export const JA: FacadeWords = {
  language: 'ja',
  step: (name, place) => (place ? `ステップ ${place.index}/${place.total}：${name}` : `ステップ：${name}`),
  attempt: (heading, attempt) => `${heading}（${attempt} 回目）`,
  candidate: (number, name) => {
    const numbered = number === undefined ? '候補' : `候補 ${number}`;
    return name ? `${numbered}（${name}）：` : `${numbered}：`;
  },
  template: (url) => `テンプレート：${url}`,
  file: 'ファイル',
  bytes: (count) => `${count} バイト`,
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
  agentFailed: (reason) => `エージェントでエラーが発生したため、このリクエストを完了できませんでした：${reason}`,
  pipelineWordsLost: '（接続が途切れたため、ここでエージェントの応答の一部が欠けている可能性があります。）',
  failedSilently: 'エージェントはこのリクエストを完了できませんでした。',
  canceledSilently: 'このリクエストは完了する前にキャンセルされました。',
  waitsSilently: 'エージェントが続けるには追加の情報が必要です。返信してください。',
  completedSilently: 'エージェントは返信せずに処理を終了しました。',
  ranToolsThenWaits: (tools) => `エージェントは ${shortList(tools).join('、')} を実行し、次のメッセージを待っています。`,
  couldNotRunThenWaits: (tools) => `エージェントは ${shortList(tools).join('、')} を実行できず、次のメッセージを待っています。`,
  turnInProgress: 'エージェントはまだ前のメッセージを処理しています。終わってからもう一度お試しください。',
  tooManyTurnsInFlight: 'エージェントは混み合っています：同時に処理中のリクエストが多すぎます。しばらくしてからもう一度お試しください。',
  turnCutByShutdown:
    '接続が中断されました（ゲートウェイの再起動）が、エージェントはリクエストの処理を続けています。結果を確認するには、この会話で任意のメッセージ（例：「続けて」）を送信してください。リクエストを送り直す必要はありません。',
  cutTurnRest: '以下は、接続が中断された前のメッセージへの返信の続きです。',
  cutTurnRestOfSameMessage:
    '今送信したメッセージは、接続が中断された前のメッセージと同じです。以下はそのメッセージへの返信の続きです。二重には実行していないため、もう一度送信する必要はありません。',
  cutTurnWhole: '以下は、接続が中断されて届かなかった、前のメッセージへの返信の全文です。',
  cutTurnWholeOfSameMessage:
    '今送信したメッセージは、接続が中断された前のメッセージと同じです（その返信は届いていませんでした）。以下はそのメッセージへの返信の全文です。二重には実行していないため、もう一度送信する必要はありません。',
  timedOutTurnRest:
    '以下は、前のメッセージへの返信の続きです（処理に時間がかかったため前回の応答は待機を終了しましたが、エージェントは処理を続けていました）。',
  timedOutTurnRestOfSameMessage:
    '今送信したメッセージは前のメッセージと同じです（処理に時間がかかったため前回の応答は待機を終了しましたが、エージェントは処理を続けていました）。以下はそのメッセージへの返信の続きです。二重には実行していないため、もう一度送信する必要はありません。',
  timedOutTurnWhole:
    '以下は、前のメッセージへの返信の全文です（処理に時間がかかったため前回の応答は何も届かないまま待機を終了しましたが、エージェントは処理を続けていました）。',
  timedOutTurnWholeOfSameMessage:
    '今送信したメッセージは前のメッセージと同じです（処理に時間がかかったため前回の応答は何も届かないまま待機を終了しましたが、エージェントは処理を続けていました）。以下はそのメッセージへの返信の全文です。二重には実行していないため、もう一度送信する必要はありません。',
  turnCutBeforeReply:
    '接続が中断されました（ゲートウェイの再起動）。エージェントはまだ返信していませんが、リクエストは届いていて処理中の可能性があります。リクエストを送り直す前に、この会話で任意のメッセージ（例：「続けて」）を送信して状況を確認してください。',
  turnCutUnanswered:
    '接続が中断されました（ゲートウェイの再起動）。エージェントはまだ返信していませんが、リクエストは届いていて処理中の可能性があります。二重に実行されないよう、まずエージェントに進捗を尋ね（例：「進捗はどうですか？」）、届いていなかった場合にのみ送り直してください。',
  turnLeftRunning:
    'エージェントの処理に時間がかかっているため応答の待機を終了しましたが、エージェントはリクエストの処理を続けています。結果を確認するには、この会話で任意のメッセージ（例：「続けて」）を送信してください。リクエストを送り直す必要はありません。',
  notStartedYet:
    'この返信で待てる時間内に、エージェントはまだ回答を始めていません。おそらくリクエストの処理を続けています。少し待ってから、この会話で任意のメッセージ（例：「続けて」）を送信すると回答を確認できます。リクエストを送り直す必要はありません。',
  notAnsweredYet:
    'エージェントはまだメッセージに返信していません。状況を確認するには、この会話で任意のメッセージ（例：「続けて」）を送信してください。メッセージを送り直す必要はありません。',
  notPassedOn: (lead) => `${lead}今送信したメッセージはエージェントに渡していません。必要な場合は、この返信が終わってからもう一度送信してください。`,
  startedAfresh:
    'エージェントは以前の会話を保持していないため、以下の返信は最初からやり直したものです。以前のやり取りの内容や、その時に作成したファイルは引き継がれていません。メッセージが以前の内容を指している場合は、もう一度詳しく伝えてください。',
  goOn: ['続けて', '続けてください', '続き', '続きをお願いします', 'どうなった', '進捗は'],
  stillAsks: 'エージェントはまだ前回のメッセージに返信しておらず、以下の質問への回答を待っています。',
  stillAsksOfSameMessage:
    '今送信したメッセージは前回と同じです。エージェントはまだそのメッセージに返信しておらず、以下の質問への回答を待っています。このメッセージはエージェントに再度転送されていません。',
  taskNotCancelable: 'このタスクはキャンセルできません。既に終了しているか、エージェントがキャンセルを受け付けていません。',
  taskFinished:
    'このタスクは既に終了しているため、メッセージを受け付けられません。タスクを指定せずに、新しいタスクとしてメッセージを送り直してください。',
  notCancelableWhilePromptWaits:
    'このタスクはキャンセルできません。エージェントは質問への回答を待っています。続けない場合は「拒否」と返信してください。',
  invalidParams: (field, description) => `パラメーターが無効です：${field}：${description}`,
  emptyText: 'メッセージのテキストが空です',
  noImageReaches: '。添付された画像もエージェントに渡せません（エージェントが対応していない画像形式か、画像のURLを取得できませんでした）',
  textPartsOnly: 'テキストのパート（kind: "text"）のみ対応しています',
  textInputOnly: 'エージェントは現在テキスト入力のみ受け付けています。',
  upstreamAnswered: (status) =>
    `上流のエージェントがエラーを返しました（HTTP ${status}）${passes(status) ? '。しばらくしてからお試しください。' : ''}`,
  failures: {
    upstreamTimedOut: '上流のエージェントが時間内に応答しませんでした',
    upstreamUnavailable: '上流のエージェントに接続できません',
    upstreamBusy: '上流のエージェントへの接続はすべて使用中です。しばらくしてからもう一度お試しください',
    upstreamCallAborted: '上流のエージェントへの呼び出しが中止されました',
    abortedOrTimedOut: '上流のエージェントへの呼び出しが中止されたか、時間切れになりました',
    shuttingDown: 'ゲートウェイを停止しています。しばらくしてからもう一度お試しください',
    internal: 'ゲートウェイで内部エラーが発生しました。しばらくしてからもう一度お試しください',
    registryOutOfReach: 'ゲートウェイは現在タスクを記録できません。しばらくしてからもう一度お試しください',
    notJsonRpcAnswer: '上流のエージェントが解釈できない応答を返しました',
    notJsonRpcStreamEvent: '上流のエージェントが解釈できないストリームイベントを送信しました',
    malformedErrorEvent: '上流のエージェントが不正な形式のエラーイベントを送信しました',
    answeredAnotherRequest: '上流のエージェントが別のリクエストに応答しました',
  },
};
