/**
 * tasks/get shows a Bailian user the reply it read in message/send and message/stream when a real a2a-js 1.x agent
 * streamed it in chunks under one message id: that SDK's store keeps only the first message of an id in the task's
 * history (and the latest in its status), so the agent's Task has lost the words between; the gateway's record of
 * the turn, which folded every chunk as it passed, has them.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { promptOf, startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { deleteRedisKeys, requireRedis, EACH_STORE } from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';
import { Receiver } from '../push/harness.js';

const CHUNKS = ['已选择', ' cn-hangzhou。', '部署完成。'];
const LONG = [...'这是一个很长的回答：我将为您在杭州地域创建一个专有网络和一台云服务器，然后部署应用。'];

/** Chunks of one message id, by prompt: all working then done without words, or the last one closing the turn. */
class OneIdChunks implements AgentExecutor {
  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const prompt = promptOf(request.userMessage);
    const { opening, status } = turnEvents(request);
    bus.publish(opening());
    const id = randomUUID();
    const chunks = prompt === 'long' ? LONG : CHUNKS;
    if (prompt === 'closing') {
      for (const chunk of chunks.slice(0, -1)) bus.publish(status(TaskState.TASK_STATE_WORKING, chunk, id));
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, chunks.at(-1), id));
      return;
    }
    for (const chunk of chunks) bus.publish(status(TaskState.TASK_STATE_WORKING, chunk, id));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
  };

  cancelTask = async (): Promise<void> => undefined;
}

const startAgent = (): Promise<RunningTestAgent> =>
  startSdkTestAgent(
    {
      name: 'one-id-chunks',
      description: 'streams its reply in chunks of one message id',
      skill: { id: 'chunks', name: 'Chunks', description: 'working, closing, long' },
    },
    new OneIdChunks(),
  );

const headers = { 'X-API-KEY': API_KEY };

beforeAll(requireRedis);

describe.each(EACH_STORE)(
  'a reply streamed in chunks of one message id by an a2a-js 1.x agent, read again with tasks/get ($name store)',
  ({ config }) => {
    const prefix = `a2a-bridge-test:${randomUUID()}:`;
    let agent: RunningTestAgent;
    let gateway: RunningGateway;
    beforeAll(async () => {
      agent = await startAgent();
      gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { 'api-key': API_KEY }, ...config(prefix) });
    });
    afterAll(async () => {
      await gateway?.close();
      await agent?.close();
      await deleteRedisKeys(prefix);
    });

    const got = async (id: string): Promise<string> => sentText((await rpc(gateway.url, 'tasks/get', { id }, { headers })).body.result);

    it.each([
      ['working', CHUNKS.join('')],
      // A closing message under the chunks' id is read on a line of its own (token-streamed-answers.test.ts).
      ['closing', `${CHUNKS.slice(0, -1).join('')}\n${CHUNKS.at(-1)}`],
      ['long', LONG.join('')],
    ])('%s: tasks/get shows what message/send and message/stream showed', async (prompt, whole) => {
      const sent = (await rpc(gateway.url, 'message/send', { message: userMessage({ text: prompt }) }, { headers })).body.result;
      const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: prompt }) }, { headers });
      const streamed = results(await opened.rest());
      expect(sentText(sent)).toBe(whole);
      expect(streamedText(streamed)).toBe(whole);
      // Read twice: a read must not lose what the one before it showed.
      const reads = [await got(sent.id), await got(sent.id), await got(streamed[0].id), await got(streamed[0].id)];
      expect(reads).toEqual([whole, whole, whole, whole]);
    });
  },
);

describe('the same reply pushed to a Bailian webhook at the turn end', () => {
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  let receiver: Receiver;
  let dir: string;
  beforeAll(async () => {
    agent = await startAgent();
    receiver = await new Receiver().up();
    dir = await mkdtemp(join(tmpdir(), 'one-id-chunks-push-'));
    gateway = await startFacadeGateway({
      upstream: { url: agent.url },
      'push-notifications': true,
      'push-allow-private': true,
      'persistence-dir': dir,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
    await receiver?.down();
    await rm(dir, { recursive: true, force: true });
  });

  it('the pushed Task shows the reply the stream showed', async () => {
    const opened = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: 'working' }),
      configuration: { acceptedOutputModes: ['text/plain'], pushNotificationConfig: { url: `${receiver.url}/chunks` } },
    });
    expect(streamedText(results(await opened.rest()))).toBe(CHUNKS.join(''));
    const stateOf = (entry: { json: unknown }) => (entry.json as { status: { state: string } }).status.state;
    await waitUntil(async () => receiver.at('/chunks').some((entry) => stateOf(entry) === 'completed'));
    const pushed = receiver.at('/chunks').filter((entry) => stateOf(entry) === 'completed');
    expect(pushed.map((entry) => sentText(entry.json))).toEqual(pushed.map(() => CHUNKS.join('')));
  });
});
