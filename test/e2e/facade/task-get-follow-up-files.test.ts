/**
 * A Bailian user asks a REAL a2a-js 1.x agent for a template: it writes files (bytes, a data part, a URL) and asks a
 * question; the user answers in the same task. The task keeps every turn's files, and tasks/get shows the reply of
 * its latest turn as message/send and message/stream showed it: the answer's own words and files, not the files of
 * the turn before as if they were this answer's. On one gateway (memory) and on two replicas sharing Redis, the
 * task read on the one that did not run the turn. The official 0.2.5 client, as Bailian calls. The same of
 * iac-code (its captured wire), whose follow-ups go on in the task that keeps every turn's templates.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { collect, rpc, sdkParams, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';
import { part, promptOf, startSdkTestAgent, textPart as text, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

beforeAll(requireRedis);

const TEMPLATE = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/8"\n}\n';
const QUESTION = '模板已写好。部署到哪个地域？';
const PLAN = { region: 'cn-hangzhou', vpcs: 1 };
const DIAGRAM_URL = 'https://example.com/diagrams/vpc.pdf';
const NOTES = 'ECS 规格：ecs.g7.large\n';
const deployed = (region: string): string => `已在 ${region} 部署完成。`;
const FIRST_STEP = '1. 起草模板\n';
const NEXT_STEP = '2. 部署网络\n';
const DEPLOYING = '正在部署。';

/**
 * The first turn writes main.tf, a data part, a URL and the first line of its steps, then asks; an answer says where
 * it deployed, after writing notes.txt (`notes`) or the next line of its steps (`steps`) first, or (`wait`) after
 * saying it deploys and waiting for the test to let it go on.
 */
class TemplateAgent implements AgentExecutor {
  /** Resolved once the `wait` answer has been taken up, and waits for letGoOn. */
  readonly waiting: Promise<void>;
  private tookUp: () => void = () => undefined;
  private readonly goOn: Promise<void>;
  letGoOn: () => void = () => undefined;
  constructor() {
    this.waiting = new Promise((resolve) => (this.tookUp = resolve));
    this.goOn = new Promise((resolve) => (this.letGoOn = resolve));
  }
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { opening, status, artifact } = turnEvents(request);
    const answer = promptOf(request.userMessage).trim();
    if (request.task) {
      // The SDK makes every stream open with a Task or a Message, also when it goes on with one.
      bus.publish(AgentEvent.task(request.task));
      if (answer === 'notes') {
        bus.publish(status(TaskState.TASK_STATE_WORKING, '好的，补充说明如下。'));
        const notes = part({ $case: 'raw', value: Buffer.from(NOTES) }, { filename: 'notes.txt', mediaType: 'text/plain' });
        bus.publish(artifact('notes.txt', [notes], false, true));
      }
      if (answer === 'steps') bus.publish(artifact('steps', [text(NEXT_STEP)], true, true));
      if (answer === 'wait') {
        bus.publish(status(TaskState.TASK_STATE_WORKING, DEPLOYING));
        this.tookUp();
        await this.goOn;
      }
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, deployed(answer)));
      return;
    }
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING, '正在起草模板。'));
    bus.publish(
      artifact('main.tf', [part({ $case: 'raw', value: Buffer.from(TEMPLATE) }, { filename: 'main.tf', mediaType: 'text/plain' })], false, true),
    );
    bus.publish(artifact('plan', [part({ $case: 'data', value: PLAN }, { mediaType: 'application/json' })], false, true));
    bus.publish(
      artifact('diagram', [part({ $case: 'url', value: DIAGRAM_URL }, { filename: 'vpc.pdf', mediaType: 'application/pdf' })], false, true),
    );
    bus.publish(artifact('steps', [text(FIRST_STEP)], false, false));
    bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION));
  };
  cancelTask = async (): Promise<void> => undefined;
}

/** What the first turn's files read as in any reply: none of them may be in the answer's. */
const FIRST_TURN_FILES = ['main.tf', 'cidr_block', 'cn-hangzhou"', DIAGRAM_URL, FIRST_STEP.trim()];

const setups = [
  { name: 'memory store', replicas: 1, config: () => ({}) },
  {
    name: 'two replicas sharing Redis',
    replicas: 2,
    config: () => ({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `a2a-bridge-test:${randomUUID()}:` }),
  },
];

describe.each(setups)("tasks/get of an answer to the agent's question shows that answer's reply ($name)", ({ replicas, config }) => {
  let agent: RunningTestAgent;
  const executor = new TemplateAgent();
  let gateways: RunningGateway[] = [];
  let asking: A2AClient;
  let reading: A2AClient;
  beforeAll(async () => {
    agent = await startSdkTestAgent(
      { name: 'templates', description: 'writes templates', skill: { id: 'tf', name: 'Templates', description: 'writes templates' } },
      executor,
    );
    const shared = { upstream: { url: agent.url }, ...config() };
    for (let i = 0; i < replicas; i++) gateways.push(await startFacadeGateway(shared));
    asking = new A2AClient(gateways[0]!.url);
    reading = new A2AClient(gateways.at(-1)!.url);
  });
  afterAll(async () => {
    executor.letGoOn();
    for (const gateway of gateways) await gateway.close();
    gateways = [];
    await agent?.close();
  });

  const readLater = async (taskId: string): Promise<string> => sentText(((await reading.getTask({ id: taskId })) as any).result);

  /** The first turn, read as `method` shows it: its files and its question; the task's id. */
  async function askedForTemplate(method: 'send' | 'stream', contextId: string): Promise<string> {
    if (method === 'send') {
      const { result }: any = await asking.sendMessage(sdkParams('生成 VPC 模板', { contextId }));
      expect(sentText(result)).toContain(TEMPLATE);
      expect(sentText(result)).toContain(QUESTION);
      return result.id;
    }
    const events = await collect(asking.sendMessageStream(sdkParams('生成 VPC 模板', { contextId })));
    expect(streamedText(events)).toContain(TEMPLATE);
    return events[0].id;
  }

  async function answered(method: 'send' | 'stream', answer: string, ids: { contextId: string; taskId: string }): Promise<string> {
    if (method === 'send') return sentText(((await asking.sendMessage(sdkParams(answer, ids))) as any).result);
    return streamedText(await collect(asking.sendMessageStream(sdkParams(answer, ids))));
  }

  it('tasks/resubscribe to an answer at work reads its words, not the first turn’s files', async () => {
    const contextId = `files-resubscribe-${randomUUID()}`;
    const taskId = await askedForTemplate('send', contextId);
    const answering = collect(asking.sendMessageStream(sdkParams('wait', { contextId, taskId })));
    await executor.waiting;
    await waitUntil(async () => (await readLater(taskId)).includes(DEPLOYING));
    const joined = reading.resubscribeTask({ id: taskId });
    const first = await joined.next();
    executor.letGoOn();
    const events = [first.value, ...(await collect(joined))];
    const read = streamedText(events);
    for (const file of FIRST_TURN_FILES) expect(read).not.toContain(file);
    expect(read).toBe(streamedText(await answering));
  });

  for (const method of ['send', 'stream'] as const) {
    it(`message/${method}: an answer in words alone reads the same in tasks/get, without the first turn's files`, async () => {
      const contextId = `files-before-${method}-${randomUUID()}`;
      const taskId = await askedForTemplate(method, contextId);
      const shown = await answered(method, 'cn-beijing', { contextId, taskId });
      expect(shown).toBe(deployed('cn-beijing'));
      const read = await readLater(taskId);
      for (const file of FIRST_TURN_FILES) expect(read).not.toContain(file);
      expect(read).toBe(shown);
    });

    it(`message/${method}: an answer that writes a file of its own reads that file once in tasks/get, and no earlier one`, async () => {
      const contextId = `files-own-${method}-${randomUUID()}`;
      const taskId = await askedForTemplate(method, contextId);
      const shown = await answered(method, 'notes', { contextId, taskId });
      expect(shown).toContain(NOTES);
      const read = await readLater(taskId);
      for (const file of FIRST_TURN_FILES) expect(read).not.toContain(file);
      expect(read.split(NOTES).length - 1).toBe(1);
      expect(read).toBe(shown);
    });

    it(`message/${method}: an answer that appends to a file of the first turn reads what it added in tasks/get, not the file again`, async () => {
      const contextId = `files-grown-${method}-${randomUUID()}`;
      const taskId = await askedForTemplate(method, contextId);
      const shown = await answered(method, 'steps', { contextId, taskId });
      expect(shown).toContain(NEXT_STEP.trim());
      const read = await readLater(taskId);
      for (const file of FIRST_TURN_FILES) expect(read).not.toContain(file);
      expect(read).toBe(shown);
    });
  }
});

describe("tasks/get of iac-code's follow-up turn shows that turn's template once", () => {
  const dir = mkdtempSync(join(tmpdir(), 'task-get-follow-up-files-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: { before: ['正在生成模板。'], after: ['请确认。'], artifact: { filename: 'main.tf', content: Buffer.from(TEMPLATE), dir } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('message/send: the second template turn reads one template in tasks/get, as it did when sent', async () => {
    const contextId = `iac-code-files-${randomUUID()}`;
    let taskId = '';
    let shown = '';
    for (const ask of ['请生成 VPC 的 Terraform 模板', '把 CIDR 改成 10.0.0.0/8']) {
      const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text: ask, contextId }) });
      ({ id: taskId } = body.result);
      shown = sentText(body.result);
      expect(shown.split(TEMPLATE).length - 1).toBe(1);
    }
    const { body } = await rpc(gateway.url, 'tasks/get', { id: taskId });
    expect(sentText(body.result)).toBe(shown);
  });
});
