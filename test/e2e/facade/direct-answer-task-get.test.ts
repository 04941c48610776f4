/**
 * Under the bailian profile an agent's direct Message answer (no task at the agent) is shown as a finished task
 * (`direct-message-as: task`). The caller holds that task's id: tasks/get of it, with the official 0.2.5 client,
 * answers the reply the caller was shown (not -32001), on either store and on any replica; tasks/cancel tells it
 * is finished. Also when the caller named the task by an id of its own.
 */
import { randomUUID } from 'node:crypto';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { DIRECT_TEXT, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { collect, sdkParams, sentText, startFacadeGateway, streamedText } from '../../support/facade.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';

beforeAll(requireRedis);

const setups = [
  { name: 'memory store', replicas: 1, config: () => ({}) },
  {
    name: 'two replicas sharing Redis (asked on the other)',
    replicas: 2,
    config: () => ({ store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `a2a-bridge-test:${randomUUID()}:` }),
  },
];

describe.each(setups)('a direct Message answer shown as a task: tasks/get of its id ($name)', ({ replicas, config }) => {
  let agent: RunningScriptedAgent;
  let gateways: RunningGateway[] = [];
  let asking: A2AClient;
  let reading: A2AClient;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    const shared = { upstream: { url: agent.url }, bailian: { profile: 'bailian' }, ...config() };
    for (let i = 0; i < replicas; i++) gateways.push(await startFacadeGateway(shared));
    asking = new A2AClient(gateways[0]!.url);
    reading = new A2AClient(gateways.at(-1)!.url);
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    gateways = [];
    await agent?.close();
  });

  /** The task id and the reply text the caller was shown of a `direct` turn. */
  const turns = {
    'message/send': async (taskId?: string) => {
      const { result }: any = await asking.sendMessage(sdkParams('direct', taskId ? { taskId } : {}));
      return { id: result.id, contextId: result.contextId, text: sentText(result), state: result.status.state };
    },
    'message/stream': async (taskId?: string) => {
      const events = await collect(asking.sendMessageStream(sdkParams('direct', taskId ? { taskId } : {})));
      return { id: events[0].id, contextId: events[0].contextId, text: streamedText(events), state: events.at(-1).status.state };
    },
  };

  for (const [how, turn] of Object.entries(turns)) {
    it(`${how}: answers the reply the caller was shown, and the turn's two messages as its history`, async () => {
      const shown = await turn();
      expect(shown).toMatchObject({ text: DIRECT_TEXT, state: 'completed' });
      const got: any = await reading.getTask({ id: shown.id });
      expect(got.error).toBeUndefined();
      expect(got.result).toMatchObject({ kind: 'task', id: shown.id, contextId: shown.contextId, status: { state: 'completed' } });
      expect(sentText(got.result)).toBe(shown.text);
      const said = got.result.history.map((message: any) => [message.role, message.parts[0].text]);
      expect(said).toEqual([
        ['user', 'direct'],
        ['agent', DIRECT_TEXT],
      ]);
    });

    it(`${how}: tasks/cancel of it says the task is finished, not that there is none`, async () => {
      const shown = await turn();
      const canceled: any = await reading.cancelTask({ id: shown.id });
      expect(canceled.error?.code).toBe(-32002);
    });

    it(`${how}: a task the caller named by an id of its own is read by that id`, async () => {
      const own = `own-${randomUUID()}`;
      const shown = await turn(own);
      expect(shown.id).toBe(own);
      const got: any = await reading.getTask({ id: own });
      expect(got.error).toBeUndefined();
      expect(got.result).toMatchObject({ id: own, status: { state: 'completed' } });
      expect(sentText(got.result)).toBe(DIRECT_TEXT);
    });
  }
});
