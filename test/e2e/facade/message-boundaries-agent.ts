/**
 * A REAL a2a-js 1.x server whose executor sends whole messages of its own, one script per prompt:
 *   parts      working messages: text, a data part, two text files, text, a file URL, text; then
 *              the completed message "Done." with the data part again
 *   progress   whole progress messages, each its own messageId (capitals, list items, status marks, Chinese)
 *   multipart  the completed message with two text parts
 *   code       a text artifact streamed in three chunks, a progress message after each of the first two
 */
import { TaskState, type Part } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { part, promptOf, startSdkTestAgent, textPart as text, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

export const PROGRESS = [
  '已创建专有网络 vpc-123',
  '已创建交换机 vsw-456',
  'Creating VPC',
  'Creating ECS',
  'Here are the steps',
  '1. Create the VPC',
  '✅ ECS created',
];
export const CODE_CHUNKS = ['resource "alicloud_vpc" "m', 'ain" {\n  cidr_block = "10.', '0.0.0/8"\n}\n'];

const file = (name: string): Part => part({ $case: 'raw', value: Buffer.from(`content of ${name}\n`) }, { filename: name, mediaType: 'text/plain' });
const data = (): Part => part({ $case: 'data', value: { step: 1 } });
const link = (): Part => part({ $case: 'url', value: 'https://example.com/x.pdf' }, { filename: 'x.pdf', mediaType: 'application/pdf' });

class MessageSender implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const prompt = promptOf(request.userMessage);
    const { opening, status, artifact } = turnEvents(request);
    const working = (parts: Part[]) => bus.publish(status(TaskState.TASK_STATE_WORKING, parts));
    bus.publish(opening());
    if (prompt === 'parts') {
      for (const parts of [
        [text('Calling the tool')],
        [data()],
        [file('main.tf')],
        [file('vars.tf')],
        [text('and then')],
        [link()],
        [text('more text')],
      ])
        working(parts);
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, [text('Done.'), data()]));
    } else if (prompt === 'progress') {
      for (const words of PROGRESS) working([text(words)]);
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, [text('All resources created.')]));
    } else if (prompt === 'multipart') {
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, [text('First part.'), text('Second part.')]));
    } else if (prompt === 'code') {
      CODE_CHUNKS.forEach((chunk, at) => {
        bus.publish(artifact('code', [text(chunk)], at > 0, at === CODE_CHUNKS.length - 1));
        if (at < CODE_CHUNKS.length - 1) working([text(`Progress ${at + 1}.`)]);
      });
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, []));
    }
  };

  cancelTask = async (): Promise<void> => {};
}

const CARD = {
  name: 'message-sender',
  description: 'An a2a-js 1.x agent that sends whole messages, files and data between its words.',
  skill: { id: 'messages', name: 'Messages', description: 'parts, progress, multipart, code' },
};

export const startMessageSender = (): Promise<RunningTestAgent> => startSdkTestAgent(CARD, new MessageSender());
