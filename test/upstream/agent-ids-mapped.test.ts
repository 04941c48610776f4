/**
 * A 0.3 HTTP+JSON agent naming its tasks and contexts outside the gateway's id rule, through the client the
 * gateway builds for it (upstreamFor): the ids reach the gateway's side encoded, and every call naming them
 * reaches the agent's routes and bodies with its own ids (src/upstream/agent-ids-mapped.ts). The 0.2.5
 * JSON-RPC side: test/e2e/upstreams/odd-ids-v025.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamConfig } from '../../src/config/schema.js';
import { A2AError } from '../../src/model/index.js';
import { upstreamFor } from '../../src/upstream/connect.js';
import { createUpstreamPool } from '../../src/upstream/http.js';
import { collect } from '../support/collect.js';
import { startFakeV03Rest } from '../support/fake-v03-rest.js';
import { sendMessageParams } from '../support/v1-message.js';
import { closeAll, ctx, open } from './support.js';

afterEach(closeAll);

const TASK = 'turn #1 ü';
const CONTEXT = 'session/1 ü';
const encoded = (id: string): string => `b64:${Buffer.from(id).toString('base64url')}`;

async function setup() {
  const agent = await startFakeV03Rest();
  open.push(agent);
  const config = UpstreamConfig.parse({});
  const pool = createUpstreamPool(config);
  open.push(pool);
  const upstream = upstreamFor({ protocol: '0.3', binding: 'HTTP+JSON' }, agent.url, config, pool);
  open.push(upstream);
  agent.tasks.set(TASK, { id: TASK, contextId: CONTEXT, status: { state: 'TASK_STATE_WORKING' }, history: [] });
  return { agent, upstream };
}

describe("a 0.3 HTTP+JSON agent's own ids, through the gateway's client for it", () => {
  it("GetTask, CancelTask and SubscribeToTask by the encoded id reach the agent's task; its ids come back encoded", async () => {
    const { agent, upstream } = await setup();
    const got = await upstream.getTask({ id: encoded(TASK) }, ctx());
    expect([got.id, got.contextId]).toEqual([encoded(TASK), encoded(CONTEXT)]);

    const events = await collect(upstream.subscribeToTask({ id: encoded(TASK) }, ctx()));
    expect(
      events.map((event) =>
        'task' in event
          ? [event.task.id, event.task.contextId]
          : 'statusUpdate' in event
            ? [event.statusUpdate.taskId, event.statusUpdate.contextId]
            : 'artifactUpdate' in event
              ? [event.artifactUpdate.taskId, event.artifactUpdate.contextId]
              : [],
      ),
    ).toEqual(events.map(() => [encoded(TASK), encoded(CONTEXT)]));
    agent.tasks.set(TASK, { id: TASK, contextId: CONTEXT, status: { state: 'TASK_STATE_WORKING' }, history: [] });
    const canceled = await upstream.cancelTask({ id: encoded(TASK) }, ctx());
    expect([canceled.id, canceled.status.state]).toEqual([encoded(TASK), 'TASK_STATE_CANCELED']);
    expect(agent.requests.filter((request) => request.path.includes('/tasks/')).map((request) => decodeURIComponent(request.path))).toEqual([
      `/agent/v1/tasks/${TASK}`,
      `/agent/v1/tasks/${TASK}`,
      `/agent/v1/tasks/${TASK}:subscribe`,
      `/agent/v1/tasks/${TASK}:cancel`,
    ]);
  });

  it("SendMessage answering the task with both encoded ids: the agent reads its own; the answer's ids are encoded", async () => {
    const { agent, upstream } = await setup();
    const answer = await upstream.sendMessage(sendMessageParams('north', { taskId: encoded(TASK), contextId: encoded(CONTEXT) }), ctx());
    expect('task' in answer && answer.task.contextId).toBe(encoded(CONTEXT));
    expect(agent.routed('message:send')[0]?.body).toMatchObject({ message: { taskId: TASK, contextId: CONTEXT } });
  });

  it("push configs name the agent's task in its route and the encoded one on the gateway's side", async () => {
    const { agent, upstream } = await setup();
    const created = await upstream.createTaskPushNotificationConfig({ taskId: encoded(TASK), url: 'https://hooks.example/a' }, ctx());
    expect(created.taskId).toBe(encoded(TASK));
    const listed = await upstream.listTaskPushNotificationConfigs({ taskId: encoded(TASK) }, ctx());
    expect(listed.configs.map((config) => config.taskId)).toEqual([encoded(TASK)]);
    expect(decodeURIComponent(agent.requests.at(-1)?.path ?? '')).toBe(`/agent/v1/tasks/${TASK}/pushNotificationConfigs`);
  });

  it('an error naming the task names it as the caller does: a task the agent no longer knows, asked for by its encoded id', async () => {
    const { agent, upstream } = await setup();
    agent.tasks.delete(TASK);
    for (const asked of [
      () => upstream.getTask({ id: encoded(TASK) }, ctx()),
      () => collect(upstream.subscribeToTask({ id: encoded(TASK) }, ctx())),
    ]) {
      const error = (await asked().catch((caught: unknown) => caught)) as A2AError;
      expect(error).toBeInstanceOf(A2AError);
      expect(error.message).toContain(encoded(TASK));
      expect(error.message).not.toContain(TASK);
      expect(error.metadata.taskId ?? encoded(TASK)).toBe(encoded(TASK));
    }
  });
});
