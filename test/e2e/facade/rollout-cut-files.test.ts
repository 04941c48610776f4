/**
 * A Bailian turn a rollout cut (rollout-cut-turns.test.ts), as an operator runs it: callers hold an API key
 * (`bailian.api-keys`), and the REAL a2a-js 1.x agent answers in one artifact streamed in appended chunks. The
 * user must read every chunk once across the cut turn's reply and the rest their next message shows, with the
 * rest read on another replica (`store: redis`) or on the one gateway restarted on its `persistence-dir`
 * (`store: memory`, whose registry forgets the task at the restart while the note of the cut keeps it): the
 * note's own caller reads its rest there, and another key still cannot reach the task.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { Gates, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';
import { CARD, CUT_WORDS, REST_WORDS, agentStateOf } from './rollout-agent.js';

const OTHER_KEY = 'bailian-other-key-4567';
const CHUNKS = Array.from({ length: 10 }, (_, at) => `chunk${at} `);
/** The chunks the agent sends before it waits at its gate: what the cut turn's user reads. */
const BEFORE_GATE = 4;
const DONE = '部署完成。';

/** One artifact in appended chunks, waiting at the gate after the first BEFORE_GATE of them; then done. */
class ChunkAgent implements AgentExecutor {
  executions = 0;
  constructor(private readonly gates: Gates) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    this.executions++;
    this.gates.taskId = request.taskId;
    const { opening, status, artifact } = turnEvents(request);
    bus.publish(opening());
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    for (let at = 0; at < CHUNKS.length; at++) {
      if (at === BEFORE_GATE) await this.gates.pass();
      bus.publish(artifact('reply', [textPart(CHUNKS[at]!)], at > 0, at === CHUNKS.length - 1));
    }
    bus.publish(status(TaskState.TASK_STATE_COMPLETED, DONE));
  };

  cancelTask = async (): Promise<void> => undefined;
}

/** How many times each chunk is in `text`. */
const chunkCounts = (text: string): number[] => CHUNKS.map((chunk) => text.split(chunk).length - 1);

describe('a Bailian turn answered in appended chunks, cut by a rollout, read with an API key', () => {
  const gates = new Gates();
  const executor = new ChunkAgent(gates);
  const stores = freshRedisStores('facade-cut-files', afterAll);
  const keys = { bailian: { 'api-keys': [API_KEY, OTHER_KEY] } };
  const withKey = { 'X-API-KEY': API_KEY };
  let agent: RunningTestAgent;
  let dir: string;
  const opened: RunningGateway[] = [];
  const redisReplica = () => ({
    ...keys,
    upstream: { url: agent.url },
    ...stores,
    'drain-timeout-ms': 200,
    tasks: { 'lane-lease-ms': 2_000 },
  });
  const memoryGateway = () => ({ ...keys, upstream: { url: agent.url }, 'drain-timeout-ms': 200, 'persistence-dir': dir });
  const started = async (config: Record<string, unknown>): Promise<RunningGateway> => {
    const gateway = await startFacadeGateway(config);
    opened.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    await requireRedis();
    agent = await startSdkTestAgent(CARD, executor);
    dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-cut-files-'));
  });
  afterAll(async () => {
    gates.reset(0);
    for (const gateway of opened) await gateway.close().catch(() => undefined);
    await agent?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A message/stream with the key; what the user reads of it. */
  const streamed = async (url: string, text: string, contextId: string): Promise<string> => {
    const opening = await openStream(`${url}/stream`, 'message/stream', { message: userMessage({ text, contextId }) }, { headers: withKey });
    return streamedText(results(await opening.rest()));
  };

  /** A turn on `gateway`, cut by its shutdown while the agent waits at its gate; what the user read of it. */
  async function cutTurn(gateway: RunningGateway, contextId: string): Promise<string> {
    gates.reset(1);
    const reading = streamed(gateway.url, '请部署', contextId);
    await waitUntil(async () => gates.reached === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await gateway.close();
    const cut = await reading;
    expect(cut).toContain(CUT_WORDS);
    expect(chunkCounts(cut)).toEqual(CHUNKS.map((_, at) => (at < BEFORE_GATE ? 1 : 0)));
    return cut;
  }

  const finished = () => waitUntil(async () => (await agentStateOf(agent.url, gates.taskId)) === 'TASK_STATE_COMPLETED');

  it('store memory, restarted on its persistence-dir: the caller that was cut reads the rest, once; another key reaches nothing', async () => {
    const contextId = `ctx-memory-${randomUUID()}`;
    const cut = await cutTurn(await started(memoryGateway()), contextId);
    const cutTaskId = gates.taskId;
    // The note names the file once, however many of its chunks the user read.
    const notes = JSON.parse(await readFile(join(dir, 'facade_cut_turns.json'), 'utf8')) as Array<{ key: string; note: any }>;
    const note = notes.find((entry) => entry.key.endsWith(`:${contextId}`))?.note;
    expect(note?.taskId).toBe(cutTaskId);
    expect(note?.shown.passedFiles).toEqual(['reply']);
    gates.open();
    await finished();
    const restarted = await started(memoryGateway());
    // Another caller cannot read the task the registry forgot, note or not.
    const foreign = await rpc(restarted.url, 'tasks/get', { id: cutTaskId }, { headers: { 'X-API-KEY': OTHER_KEY } });
    expect(foreign.body.error?.code).toBe(-32001);
    const executions = executor.executions;
    const answer = await rpc(restarted.url, 'message/send', { message: userMessage({ text: '继续', contextId }) }, { headers: withKey });
    const rest = sentText(answer.body.result);
    expect(rest).toContain(REST_WORDS);
    expect(rest).toContain(DONE);
    expect(chunkCounts(cut + rest)).toEqual(CHUNKS.map(() => 1));
    expect(executor.executions).toBe(executions);
  });

  it('store memory, restarted while the agent still writes: its caller follows the rest live, every chunk once', async () => {
    const contextId = `ctx-memory-live-${randomUUID()}`;
    const cut = await cutTurn(await started(memoryGateway()), contextId);
    const restarted = await started(memoryGateway());
    const executions = executor.executions;
    const reading = streamed(restarted.url, '继续', contextId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    gates.open();
    const rest = await reading;
    expect(rest).toContain(REST_WORDS);
    expect(rest).toContain(DONE);
    expect(chunkCounts(cut + rest)).toEqual(CHUNKS.map(() => 1));
    expect(executor.executions).toBe(executions);
  });

  it('store redis, the rest read on another replica: every chunk once across the cut and the rest', async () => {
    const contextId = `ctx-redis-${randomUUID()}`;
    const replicaB = await started(redisReplica());
    const cut = await cutTurn(await started(redisReplica()), contextId);
    gates.open();
    await finished();
    const executions = executor.executions;
    const rest = await streamed(replicaB.url, '继续', contextId);
    expect(rest).toContain(REST_WORDS);
    expect(rest).toContain(DONE);
    expect(chunkCounts(cut + rest)).toEqual(CHUNKS.map(() => 1));
    expect(executor.executions).toBe(executions);
  });

  it('store redis, the rest followed live while the agent still writes: every chunk once', async () => {
    const contextId = `ctx-live-${randomUUID()}`;
    const replicaB = await started(redisReplica());
    const cut = await cutTurn(await started(redisReplica()), contextId);
    const executions = executor.executions;
    const reading = streamed(replicaB.url, '继续', contextId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    gates.open();
    const rest = await reading;
    expect(rest).toContain(REST_WORDS);
    expect(rest).toContain(DONE);
    expect(chunkCounts(cut + rest)).toEqual(CHUNKS.map(() => 1));
    expect(executor.executions).toBe(executions);
  });
});
