/**
 * A REAL a2a-js 1.x server whose executor sends whole messages of its own, one script per prompt:
 *   parts      working messages: text, a data part, two text files, text, a file URL, text; then
 *              the completed message "Done." with the data part again
 *   progress   whole progress messages, each its own messageId (capitals, list items, status marks, Chinese)
 *   multipart  the completed message with two text parts
 *   code       a text artifact streamed in three chunks, a progress message after each of the first two
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type AgentCard, type Part } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { openingTask, serveSdkAgent } from '../../support/sdk-v1-server.js';

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

const part = (content: Part['content'], extra: Partial<Part> = {}): Part => ({ content, metadata: undefined, filename: '', mediaType: '', ...extra });
const text = (value: string): Part => part({ $case: 'text', value }, { mediaType: 'text/plain' });
const file = (name: string): Part => part({ $case: 'raw', value: Buffer.from(`content of ${name}\n`) }, { filename: name, mediaType: 'text/plain' });
const data = (): Part => part({ $case: 'data', value: { step: 1 } });
const link = (): Part => part({ $case: 'url', value: 'https://example.com/x.pdf' }, { filename: 'x.pdf', mediaType: 'application/pdf' });

class MessageSender implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = request;
    const prompt = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const status = (state: TaskState, parts: Part[]) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message: {
            messageId: randomUUID(),
            contextId,
            taskId,
            role: Role.ROLE_AGENT,
            parts,
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          },
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      });
    const working = (parts: Part[]) => bus.publish(status(TaskState.TASK_STATE_WORKING, parts));
    bus.publish(openingTask(taskId, contextId, userMessage));
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
        const artifact = { artifactId: 'code', name: 'code', description: '', parts: [text(chunk)], metadata: undefined, extensions: [] };
        bus.publish(
          AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: at > 0, lastChunk: at === CODE_CHUNKS.length - 1, metadata: undefined }),
        );
        if (at < CODE_CHUNKS.length - 1) working([text(`Progress ${at + 1}.`)]);
      });
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, []));
    }
  };

  cancelTask = async (): Promise<void> => {};
}

function card(baseUrl: string): AgentCard {
  return {
    name: 'message-sender',
    description: 'An a2a-js 1.x agent that sends whole messages, files and data between its words.',
    supportedInterfaces: [{ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    provider: { organization: 'a2a-bridge tests', url: 'https://example.com' },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'messages',
        name: 'Messages',
        description: 'parts, progress, multipart, code',
        tags: ['test'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

export async function startMessageSender(): Promise<{ url: string; close(): Promise<void> }> {
  const { url, server } = await serveSdkAgent(card, new MessageSender(), { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
