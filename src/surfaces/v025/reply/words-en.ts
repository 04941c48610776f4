import { GATEWAY_FAILURES } from '../../../model/index.js';
import type { FacadeWords } from './words.js';
import { shortList } from './word-lists.js';

/** The facade's words in English (words.ts says what each is for). */
export const EN: FacadeWords = {
  language: 'en',
  step: (name, place) => (place ? `Step ${place.index}/${place.total}: ${name}` : `Step: ${name}`),
  attempt: (heading, attempt) => `${heading} (attempt ${attempt})`,
  candidate: (number, name) => {
    const numbered = number === undefined ? 'Candidate' : `Candidate ${number}`;
    return name ? `${numbered} (${name}):` : `${numbered}:`;
  },
  template: (url) => `Template: ${url}`,
  file: 'file',
  bytes: (count) => `${count} bytes`,
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
  agentFailed: (reason) => `The agent ran into an error and could not finish: ${reason}`,
  pipelineWordsLost: "(Part of the agent's reply may be missing here: the connection broke.)",
  failedSilently: 'The agent could not complete this request.',
  canceledSilently: 'The request was canceled before it was finished.',
  waitsSilently: 'The agent needs more information to go on. Please reply.',
  completedSilently: 'The agent finished without a reply.',
  ranToolsThenWaits: (tools) => `The agent ran ${shortList(tools).join(', ')} and is waiting for your next message.`,
  couldNotRunThenWaits: (tools) => `The agent could not run ${shortList(tools).join(', ')} and is waiting for your next message.`,
  turnInProgress: 'The agent is still working on your last message. Please wait for it to finish, then try again.',
  tooManyTurnsInFlight: 'The agent is busy with too many requests from this client. Please try again in a moment.',
  turnCutByShutdown:
    'The connection was interrupted (the gateway restarted), but the agent is still working on your request. Send any message in this conversation (for example "continue") to see the result; there is no need to send your request again.',
  cutTurnRest: 'Here is the rest of the reply to your previous message, whose connection was interrupted.',
  cutTurnRestOfSameMessage:
    "The message you just sent is the same as your previous one, whose connection was interrupted. Here is the rest of the agent's reply to it. It was not run a second time; there is no need to send it again.",
  cutTurnWhole: 'Here is the reply to your previous message, whose connection was interrupted before any of it reached you.',
  cutTurnWholeOfSameMessage:
    "The message you just sent is the same as your previous one, whose connection was interrupted before any of the reply reached you. Here is the agent's whole reply to it. It was not run a second time; there is no need to send it again.",
  timedOutTurnRest: 'Here is the rest of the reply to your previous message: the agent took longer than that reply could wait, and went on working.',
  timedOutTurnRestOfSameMessage:
    "The message you just sent is the same as your previous one, which the agent went on working on after that reply stopped waiting. Here is the rest of the agent's reply to it. It was not run a second time; there is no need to send it again.",
  timedOutTurnWhole:
    'Here is the reply to your previous message: the agent took longer than that reply could wait, before any of it reached you, and went on working.',
  timedOutTurnWholeOfSameMessage:
    "The message you just sent is the same as your previous one, which the agent went on working on after that reply stopped waiting, before any of the reply reached you. Here is the agent's whole reply to it. It was not run a second time; there is no need to send it again.",
  turnCutBeforeReply:
    'The connection was interrupted (the gateway restarted) before the agent replied. Your request may have reached the agent, which may still be working on it. Send any message in this conversation (for example "continue") to see where it stands before you send your request again.',
  turnCutUnanswered:
    'The connection was interrupted (the gateway restarted) before the agent replied. Your request may have reached the agent, which may still be working on it. Ask the agent about its progress first (for example "What is the progress?"), and send your request again only if it did not get it, so that it does not run twice.',
  turnLeftRunning:
    'The agent is taking longer than this reply can wait, but it is still working on your request. Send any message in this conversation (for example "continue") to see the result; there is no need to send your request again.',
  notStartedYet:
    'The agent has not started answering yet within the time this reply can wait, and is probably still working on your request. Send any message in this conversation in a moment (for example "continue") to see its reply; there is no need to send your request again.',
  notAnsweredYet:
    'The agent has not answered your message yet. Send any message in this conversation (for example "continue") to see where it stands; there is no need to send your message again.',
  notPassedOn: (lead) =>
    `${lead} The message you just sent was not passed to the agent; if you still need it, send it again once this reply has finished.`,
  startedAfresh:
    'The agent no longer had the earlier part of this conversation, so its answer below starts afresh: it does not know what was said before, nor the files it made then. If your message refers to something from earlier, please describe it again.',
  goOn: ['continue', 'go on', 'keep going', 'any update', 'any updates', 'status'],
  stillAsks: 'The agent has not answered your previous message: it is still waiting for an answer to its question below.',
  stillAsksOfSameMessage:
    'The message you just sent is the same as your previous one, which the agent has not answered: it is still waiting for an answer to its question below. It was not passed to the agent a second time.',
  taskNotCancelable: 'Task cannot be canceled',
  taskFinished: 'This task has already ended and takes no more messages. Send your message again as a new task, without its task id.',
  notCancelableWhilePromptWaits:
    'Task cannot be canceled: the agent is waiting for your answer to its question. If you do not want it to go on, reply "Deny".',
  invalidParams: (field, description) => `Invalid params: ${field}: ${description}`,
  emptyText: 'the message text is empty',
  noImageReaches: ', and none of its images reaches the agent (its card takes none of their types, or their URL could not be fetched)',
  textPartsOnly: 'Only text parts are supported (kind: "text")',
  textInputOnly: 'A2A server currently accepts text input only.',
  upstreamAnswered: (status) => `The upstream agent answered HTTP ${status}`,
  failures: GATEWAY_FAILURES,
};
