/**
 * A real a2a-js 1.x agent writes a file as raw bytes in appended artifact chunks (a text file cut between
 * bytes, a Chinese one cut inside a character, a binary one), or completes without a word; a Bailian user
 * reads message/stream and message/send. The file reads as one fenced block (a binary one as one line with
 * its whole size); the silent turn says so.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type Part } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { startSdkTestAgent, type RunningTestAgent, type TestAgentCardSpec } from '../../support/sdk-v1-agent-kit.js';
import { openingTask } from '../../support/sdk-v1-server.js';

const TF = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
const ZH = '# 说明\n这是一个专有网络模板，包含两个交换机。\n';
const MD = '# Deploy\n\nRun:\n```bash\nterraform apply\n```\nThen check the console.\n';

const part = (content: Part['content'], extra: Partial<Part> = {}): Part => ({ content, metadata: undefined, filename: '', mediaType: '', ...extra });
const text = (value: string): Part => part({ $case: 'text', value }, { mediaType: 'text/plain' });

/** The file each prompt writes: its bytes, cut at byte offsets, its name and type, and the progress sent after it. */
const FILES: Record<string, { bytes: Buffer; cuts: number[]; filename: string; mediaType: string; after?: string[] }> = {
  tf: { bytes: Buffer.from(TF), cuts: [7, 20], filename: 'main.tf', mediaType: 'text/plain' },
  zh: { bytes: Buffer.from(ZH), cuts: [7, 20], filename: 'README.md', mediaType: 'text/plain' },
  png: { bytes: Buffer.alloc(300, 7), cuts: [100, 200], filename: 'logo.png', mediaType: 'image/png' },
  // Its second chunk holds the file's own ``` block.
  md: {
    bytes: Buffer.from(MD),
    cuts: [15, 48],
    filename: 'README.md',
    mediaType: 'text/markdown',
    after: ['Creating VPC', 'Creating ECS', 'All resources created.'],
  },
};

class FileWriter implements AgentExecutor {
  execute = async ({ taskId, contextId, userMessage: asked }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const prompt = asked.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const message = (value: string): Message => ({
      messageId: randomUUID(),
      contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [text(value)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
    const status = (state: TaskState, said?: string) =>
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, message: said ? message(said) : undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      });
    bus.publish(openingTask(taskId, contextId, asked));
    const file = FILES[prompt];
    if (!file) {
      bus.publish(status(TaskState.TASK_STATE_COMPLETED));
      return;
    }
    bus.publish(status(TaskState.TASK_STATE_WORKING, 'Writing the file.'));
    const at = [0, ...file.cuts, file.bytes.length];
    for (let i = 0; i < at.length - 1; i++) {
      const raw = part({ $case: 'raw', value: file.bytes.subarray(at[i], at[i + 1]) }, { filename: file.filename, mediaType: file.mediaType });
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId: 'f', name: 'f', description: '', parts: [raw], metadata: undefined, extensions: [] },
          append: i > 0,
          lastChunk: i === at.length - 2,
          metadata: undefined,
        }),
      );
    }
    for (const said of file.after ?? []) bus.publish(status(TaskState.TASK_STATE_WORKING, said));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, 'The file is ready.'));
  };
  cancelTask = async (): Promise<void> => {};
}

const CARD: TestAgentCardSpec = {
  name: 'file writer',
  description: 'writes files in appended chunks',
  skill: { id: 'files', name: 'Files', description: 'writes files' },
};

describe('a Bailian user in front of an a2a-js 1.x agent that writes a file in appended chunks of raw bytes', () => {
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  const headers = { 'X-API-KEY': API_KEY };

  beforeAll(async () => {
    agent = await startSdkTestAgent(CARD, new FileWriter());
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY } });
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  /** What the user reads of one turn, streamed and sent. */
  async function read(prompt: string): Promise<{ streamed: string; sent: string }> {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: prompt }) }, { headers });
    const streamed = streamedText(results(await stream.rest()).filter(Boolean));
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: prompt }) }, { headers });
    return { streamed, sent: sentText(answer.body.result) };
  }

  it('a text file cut between bytes reads as one fenced block with the whole file', async () => {
    const whole = `Writing the file.\nmain.tf\n\`\`\`hcl\n${TF}\`\`\`\nThe file is ready.`;
    expect(await read('tf')).toEqual({ streamed: whole, sent: whole });
  });

  it('a Chinese file cut inside a character is shown, whole, not described piece by piece', async () => {
    const whole = `Writing the file.\nREADME.md\n\`\`\`markdown\n${ZH}\`\`\`\nThe file is ready.`;
    expect(await read('zh')).toEqual({ streamed: whole, sent: whole });
  });

  it('a binary file is described once, with its whole size', async () => {
    const whole = 'Writing the file.\nlogo.png (image/png, 300 bytes)\nThe file is ready.';
    expect(await read('png')).toEqual({ streamed: whole, sent: whole });
  });

  it('a Markdown file whose later chunk holds its own ``` block: its block closed and opened again under a longer fence, the progress after it on lines of its own', async () => {
    const whole =
      'Writing the file.\nREADME.md\n```markdown\n# Deploy\n\nRun:\n```\n````markdown\n```bash\nterraform apply\n```\n' +
      'Then check the console.\n````\nCreating VPC\nCreating ECS\nAll resources created.\nThe file is ready.';
    expect(await read('md')).toEqual({ streamed: whole, sent: whole });
  });

  it('a turn that completes without a word says so', async () => {
    const said = 'The agent finished without a reply.';
    expect(await read('nothing')).toEqual({ streamed: said, sent: said });
  });
});
