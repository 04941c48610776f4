/**
 * A REAL A2A 0.3 agent over HTTP+JSON only: the a2a-js 1.x server with its 0.3 compatibility on (`legacyCompat`),
 * its card listing one interface, HTTP+JSON 0.3, so the gateway (told `upstream.protocol: 0.3`) speaks 0.3 REST to it.
 *
 * A turn for the user text T opens its Task, says WORKING, and only after LATER_MS answers: `answer:` with a Message of
 * its task (the SDK ends a stream there with an ordering error, and keeps the task WORKING in its store), any other
 * text with the artifact `reply` holding `answerText(T)` and COMPLETED carrying the same words.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { agentMessage, promptOf, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { serveLegacyCompatAgent } from './legacy-compat-agent.js';
import { answerText } from './v03-answer-message-agent.js';

/** Long enough that a call not waiting for the turn is answered before the turn ends. */
export const LATER_MS = 300;

const answersLater: AgentExecutor = {
  async execute(request, bus): Promise<void> {
    const turn = turnEvents(request);
    const prompt = promptOf(request.userMessage);
    bus.publish(turn.opening());
    bus.publish(turn.status(TaskState.TASK_STATE_WORKING));
    await sleep(LATER_MS);
    if (prompt.startsWith('answer:')) {
      bus.publish(AgentEvent.message(agentMessage(answerText(prompt), request.taskId, request.contextId)));
    } else {
      bus.publish(turn.artifact('reply', [textPart(answerText(prompt))], false, true));
      bus.publish(turn.status(TaskState.TASK_STATE_COMPLETED, answerText(prompt)));
    }
  },
  async cancelTask(): Promise<void> {},
};

export const startV03RestLaterAgent = (): Promise<RunningTestAgent> =>
  serveLegacyCompatAgent({
    name: 'sdk-v03-rest-answers-later',
    description: 'An a2a-js 1.x agent served as A2A 0.3 over HTTP+JSON that answers a while after the turn opens.',
    interfaces: [{ binding: 'HTTP+JSON', version: '0.3' }],
    executor: answersLater,
  });
