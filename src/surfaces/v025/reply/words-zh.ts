import type { FacadeWords } from './words.js';
import { listed, passes, shortList } from './word-lists.js';

/** The facade's words in Chinese (words.ts says what each is for). */
export const ZH: FacadeWords = {
  language: 'zh',
  step: (name, place) => (place ? `步骤 ${place.index}/${place.total}：${name}` : `步骤：${name}`),
  attempt: (heading, attempt) => `${heading}（第 ${attempt} 次尝试）`,
  candidate: (number, name) => {
    const numbered = number === undefined ? '候选方案' : `候选方案 ${number}`;
    return name ? `${numbered}（${name}）：` : `${numbered}：`;
  },
  template: (url) => `模板：${url}`,
  file: '文件',
  bytes: (count) => `${count} 字节`,
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
  replyWithChoice: '请回复你的选择。',
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
  agentFailed: (reason) => `智能体出错，未能完成本次请求：${reason}`,
  pipelineWordsLost: '（连接中断，此处可能缺少智能体的部分回复。）',
  failedSilently: '智能体未能完成本次请求。',
  canceledSilently: '本次请求已取消，未能完成。',
  waitsSilently: '智能体需要更多信息才能继续，请回复。',
  completedSilently: '智能体已完成，但没有回复任何内容。',
  ranToolsThenWaits: (tools) => `智能体已运行 ${shortList(tools).join('、')}，正在等待你的下一条消息。`,
  couldNotRunThenWaits: (tools) => `智能体未能运行 ${shortList(tools).join('、')}，正在等待你的下一条消息。`,
  turnInProgress: '智能体仍在处理你的上一条消息，请等它完成后再试。',
  tooManyTurnsInFlight: '智能体正忙：同时进行的请求过多，请稍后再试。',
  turnCutByShutdown: '连接已中断（网关正在重启），但智能体仍在继续处理你的请求。请在本对话中发送任意消息（例如“继续”）查看结果，无需重新提交请求。',
  cutTurnRest: '以下是你上一条消息在连接中断后的后续回复。',
  cutTurnRestOfSameMessage: '你刚发送的消息与连接中断的上一条消息相同。以下是智能体对这条消息的后续回复；它没有被重复执行，无需重新发送。',
  cutTurnWhole: '以下是你上一条消息的完整回复：此前连接中断，这条回复没有送达。',
  cutTurnWholeOfSameMessage:
    '你刚发送的消息与连接中断的上一条消息相同，此前的回复没有送达。以下是智能体对这条消息的完整回复；它没有被重复执行，无需重新发送。',
  timedOutTurnRest: '以下是你上一条消息的后续回复：智能体处理时间较长，上次回复已停止等待，但它一直在继续处理。',
  timedOutTurnRestOfSameMessage:
    '你刚发送的消息与上一条消息相同：智能体处理那条消息的时间较长，上次回复已停止等待，但它一直在继续处理。以下是智能体对这条消息的后续回复；它没有被重复执行，无需重新发送。',
  timedOutTurnWhole: '以下是你上一条消息的完整回复：智能体处理时间较长，上次回复在收到任何内容之前就已停止等待，但它一直在继续处理。',
  timedOutTurnWholeOfSameMessage:
    '你刚发送的消息与上一条消息相同：智能体处理那条消息的时间较长，上次回复在收到任何内容之前就已停止等待。以下是智能体对这条消息的完整回复；它没有被重复执行，无需重新发送。',
  turnCutBeforeReply:
    '连接已中断（网关正在重启），智能体尚未回复。你的请求可能已送达智能体，它可能仍在处理。请先在本对话中发送任意消息（例如“继续”）查看进展，再决定是否重新提交请求。',
  turnCutUnanswered:
    '连接已中断（网关正在重启），智能体尚未回复。你的请求可能已送达智能体，它可能仍在处理。请先询问智能体的进度（例如“进度如何？”），确认它没有收到后再重新提交请求，以免重复执行。',
  turnLeftRunning:
    '智能体处理时间较长，本次回复已停止等待，但智能体仍在继续处理你的请求。请在本对话中发送任意消息（例如“继续”）查看结果，无需重新提交请求。',
  notStartedYet:
    '智能体在本次回复的等待时间内还没有开始回复，它很可能仍在处理你的请求。请稍后在本对话中发送任意消息（例如“继续”）查看回复，无需重新提交请求。',
  notAnsweredYet: '智能体尚未回复你的消息。请在本对话中发送任意消息（例如“继续”）查看进展，无需重新发送。',
  notPassedOn: (lead) => `${lead}你刚发送的消息没有转给智能体；如仍需要，请在这条回复结束后重新发送。`,
  startedAfresh:
    '智能体已不再保留之前的对话，本次回复从头开始：它不了解之前的对话内容，也无法使用之前生成的文件。如果你的消息涉及之前的内容，请重新完整地描述。',
  goOn: ['继续', '请继续', '继续吧', '接着说', '然后呢', '进展如何', '怎么样了', '结果呢'],
  stillAsks: '智能体尚未回复你的上一条消息，它仍在等待你回答下面的问题。',
  stillAsksOfSameMessage: '你刚发送的消息与上一条消息相同。智能体尚未回复那条消息，它仍在等待你回答下面的问题。这条消息没有再次转给智能体。',
  taskNotCancelable: '无法取消该任务：它已经结束，或智能体不接受取消。',
  taskFinished: '该任务已经结束，不能再接收消息。请不指定该任务、作为新任务重新发送你的消息。',
  notCancelableWhilePromptWaits: '无法取消该任务：智能体正在等待你回答它的问题。如不想继续，请回复“拒绝”。',
  invalidParams: (field, description) => `参数无效：${field}：${description}`,
  emptyText: '消息内容为空',
  noImageReaches: '，附带的图片也都无法交给智能体（智能体不接受这些图片的类型，或图片链接无法获取）',
  textPartsOnly: '仅支持文本内容（kind: "text"）',
  textInputOnly: '智能体目前仅接受文字输入。',
  upstreamAnswered: (status) => `上游智能体出错（HTTP ${status}）${passes(status) ? '，请稍后重试' : ''}`,
  failures: {
    upstreamTimedOut: '上游智能体响应超时',
    upstreamUnavailable: '暂时无法连接上游智能体',
    upstreamBusy: '上游智能体的所有连接都在使用中，请稍后重试',
    upstreamCallAborted: '对上游智能体的调用已中止',
    abortedOrTimedOut: '对上游智能体的调用已中止或超时',
    shuttingDown: '网关正在关闭，请稍后重试',
    internal: '网关内部错误，请稍后重试',
    registryOutOfReach: '网关暂时无法记录任务，请稍后重试',
    notJsonRpcAnswer: '上游智能体返回了无法识别的响应',
    notJsonRpcStreamEvent: '上游智能体发送了无法识别的流式事件',
    malformedErrorEvent: '上游智能体发送了格式错误的错误事件',
    answeredAnotherRequest: '上游智能体回复的是另一个请求',
  },
};
