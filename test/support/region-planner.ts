/**
 * A REAL a2a-js 1.x agent's executor that asks a question (INPUT_REQUIRED) and, answered in the same task, works,
 * writes a plan artifact and completes: what the tests of answers to a question run against, in the shapes the SDK
 * allows. `reopensTask`: the answer's turn opens with the task as it stands (a 1.x stream must open with a Task or
 * Message), else updates alone, as the SDK's samples do; `beforeWorking`: awaited after that opening.
 */
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { promptOf, textPart, turnEvents } from './sdk-v1-agent-kit.js';

export const REGION_QUESTION = 'Which region do you want?';

export function regionPlanner(options: { reopensTask: boolean; beforeWorking?: () => Promise<void> }): AgentExecutor {
  return {
    async execute(request, bus): Promise<void> {
      const turn = turnEvents(request);
      if (request.task) {
        if (options.reopensTask) bus.publish(AgentEvent.task(request.task));
        await options.beforeWorking?.();
        const region = promptOf(request.userMessage);
        bus.publish(turn.status(TaskState.TASK_STATE_WORKING, `Got your answer: ${region}`));
        bus.publish(turn.artifact('plan', [textPart(`A VPC in ${region}`)], false, true));
        bus.publish(turn.status(TaskState.TASK_STATE_COMPLETED, 'All done.'));
      } else {
        bus.publish(turn.opening());
        bus.publish(turn.status(TaskState.TASK_STATE_INPUT_REQUIRED, REGION_QUESTION));
      }
      bus.finished();
    },
    async cancelTask(): Promise<void> {},
  };
}
