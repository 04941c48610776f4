/**
 * Tenants (A2A 1.0 `tenant`: the HTTP+JSON path's `/{tenant}` segment, the field on JSON-RPC and gRPC),
 * with the official a2a-js 1.x client over each binding in front of a real a2a-js 1.x agent, which keeps
 * its tasks per tenant. A task belongs to the tenant it was created under: the gateway answers for it as
 * the agent would (not found under any other tenant, listed only under its own, none being the default
 * tenant), and what it asks the agent on its own about the task (the stale-task refresh of ListTasks, the
 * check of a task the agent seems to have lost, the push follow) names the task's tenant, so a running
 * task is never recorded lost ("The agent no longer knows this task") while the agent runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState, type SendMessageRequest, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { connectGrpc } from '../grpc/grpc-client.js';
import { Receiver } from '../push/harness.js';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { SDK_SLOW_PREFIX, sdkReply } from '../../support/sdk-v1-agent.js';
import { asTask, collect, connect, listRequest, outline, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { reasonOf } from '../../support/rejection.js';

const ACME = 'acme';
/** `tasks.lost-after-ms`, short: a task the agent did not know for this long would be recorded failed. */
const LOST_AFTER_MS = 600;
const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

let gateway: TestGateway;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-tenants-'));
  receiver = await new Receiver().up();
  gateway = await startSdkGateway(
    {
      grpc: { port: 0 },
      tasks: { 'lost-after-ms': LOST_AFTER_MS },
      'push-notifications': true,
      'push-allow-private': true,
      'persistence-dir': dir,
    },
    { slowChunkDelayMs: 150 },
  );
});

afterAll(async () => {
  await gateway?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
});

const inTenant = (tenant: string, request: SendMessageRequest): SendMessageRequest => ({ ...request, tenant });

/** A turn answered while it still runs (`returnImmediately`), with an inline push config when `hook` is given. */
type PushedStatus = { status: { state: string; message?: unknown } };

function runningTurn(tenant: string, text: string, hook?: string): SendMessageRequest {
  const push = hook ? { tenant: '', id: 'hook', taskId: '', url: hook, token: 'secret-token', authentication: undefined } : undefined;
  const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: push, historyLength: undefined, returnImmediately: true };
  return { ...inTenant(tenant, sendRequest(text)), configuration };
}

// Each test starts tasks of its own and looks only at those (and the receiver's path of its binding): side by
// side, the slow turns they wait out overlap.
describe.concurrent.each(BINDINGS)('tenants over %s', (binding) => {
  let client: Client;

  beforeAll(async () => {
    client = binding === 'GRPC' ? await connectGrpc(gateway.url) : (await connect(gateway.url, binding)).client;
  });

  const getTask = (tenant: string, id: string) => client.getTask({ tenant, id, historyLength: undefined });
  const listed = async (tenant: string): Promise<Task[]> => (await client.listTasks(listRequest({ tenant }))).tasks;
  const listedState = async (tenant: string, id: string) => (await listed(tenant)).find((task) => task.id === id)?.status?.state;

  it('finds a task under the tenant it was created under only, as the agent does', async ({ expect }) => {
    const acme = asTask(await client.sendMessage(inTenant(ACME, sendRequest('hello acme'))));
    const plain = asTask(await client.sendMessage(sendRequest('hello default')));
    expect((await getTask(ACME, acme.id)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await getTask('', plain.id)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    for (const tenant of ['other', '']) expect(await reasonOf(getTask(tenant, acme.id))).toBe('TASK_NOT_FOUND');
    expect(await reasonOf(getTask(ACME, plain.id))).toBe('TASK_NOT_FOUND');
    expect(await reasonOf(client.cancelTask({ tenant: 'other', id: acme.id, metadata: undefined }))).toBe('TASK_NOT_FOUND');
    expect(await reasonOf(client.resubscribeTask({ tenant: 'other', id: acme.id }))).toBe('TASK_NOT_FOUND');
    // A follow-up naming the task under another tenant reaches no task either.
    const followUp = inTenant('other', sendRequest('and again', { taskId: acme.id, contextId: acme.contextId }));
    expect(await reasonOf(client.sendMessage(followUp))).toBe('TASK_NOT_FOUND');
    // Nor does a message naming its (finished, so not busy) context alone: the conversation is the tenant's,
    // refused as another caller's context is (-32602), not continued.
    for (const tenant of ['other', '']) {
      const intoContext = inTenant(tenant, sendRequest('continue acme', { contextId: acme.contextId }));
      expect(await reasonOf(client.sendMessage(intoContext))).toBe('INVALID_PARAMS');
    }
    // Push configs of the task: created under its tenant, not found under another.
    const hook = { taskId: acme.id, id: 'h1', url: `${receiver.url}/h1`, token: '', authentication: undefined };
    expect((await client.createTaskPushNotificationConfig({ ...hook, tenant: ACME })).id).toBe('h1');
    expect(await reasonOf(client.createTaskPushNotificationConfig({ ...hook, tenant: 'other' }))).toBe('TASK_NOT_FOUND');
    expect(await reasonOf(client.getTaskPushNotificationConfig({ tenant: 'other', taskId: acme.id, id: 'h1' }))).toBe('TASK_NOT_FOUND');
    expect(await reasonOf(client.deleteTaskPushNotificationConfig({ tenant: '', taskId: acme.id, id: 'h1' }))).toBe('TASK_NOT_FOUND');
    expect((await client.getTaskPushNotificationConfig({ tenant: ACME, taskId: acme.id, id: 'h1' })).url).toBe(hook.url);
  });

  it("lists under a tenant only that tenant's tasks, and without one only the default tenant's, as a2a-js does", async ({ expect }) => {
    const acme = asTask(await client.sendMessage(inTenant(ACME, sendRequest('listed in acme'))));
    const plain = asTask(await client.sendMessage(sendRequest('listed by default')));
    const ids = async (tenant: string) => (await listed(tenant)).map((task) => task.id);
    expect(await ids(ACME)).toContain(acme.id);
    expect(await ids(ACME)).not.toContain(plain.id);
    expect(await ids('')).toContain(plain.id);
    expect(await ids('')).not.toContain(acme.id);
    const other = await ids('other');
    expect(other).not.toContain(acme.id);
    expect(other).not.toContain(plain.id);
  });

  it('asks the agent about a running task in its tenant: it is never recorded lost, and is seen to end', async ({ expect }) => {
    const text = `${SDK_SLOW_PREFIX} tenant work`;
    const running = asTask(await client.sendMessage(runningTurn(ACME, text)));
    const seen: Array<TaskState | undefined> = [];
    // Past lost-after-ms: asked under another tenant the task is not found, which is no news about it.
    for (const until = Date.now() + 2 * LOST_AFTER_MS; Date.now() < until; await sleep(150)) {
      expect(await reasonOf(getTask('other', running.id))).toBe('TASK_NOT_FOUND');
      expect(await reasonOf(client.resubscribeTask({ tenant: '', id: running.id }))).toBe('TASK_NOT_FOUND');
      seen.push(await listedState(ACME, running.id));
    }
    expect(seen).not.toContain(TaskState.TASK_STATE_FAILED);
    // Answered SUBMITTED, listed WORKING: the list's refresh asked the agent in the task's tenant.
    expect(seen).toContain(TaskState.TASK_STATE_WORKING);
    // The list's own refresh, in the task's tenant, learns the end the agent reached.
    await expect.poll(() => listedState(ACME, running.id), { timeout: 10_000, interval: 250 }).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf((await getTask(ACME, running.id)).status?.message)).toBe(sdkReply(text, 1).full);
  });

  it('follows a running task under its tenant with SubscribeToTask, and cancels it only there', async ({ expect }) => {
    const followed = asTask(await client.sendMessage(runningTurn(ACME, `${SDK_SLOW_PREFIX} followed`)));
    const outlines = (await collect(client.resubscribeTask({ tenant: ACME, id: followed.id }))).map(outline);
    expect(outlines[0]).toBe('task');
    expect(outlines.at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_COMPLETED}`);

    const canceled = asTask(await client.sendMessage(runningTurn(ACME, `${SDK_SLOW_PREFIX} to cancel`)));
    // Under another tenant the cancel is answered at once, and cancels nothing.
    for (const tenant of ['other', '']) {
      expect(await reasonOf(client.cancelTask({ tenant, id: canceled.id, metadata: undefined }))).toBe('TASK_NOT_FOUND');
    }
    expect((await getTask(ACME, canceled.id)).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const answer = await client.cancelTask({ tenant: ACME, id: canceled.id, metadata: undefined });
    expect(answer.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("pushes a tenant's running task's real end, never a failure the agent did not report", async ({ expect }) => {
    const hook = `${receiver.url}/${binding}`;
    const text = `${SDK_SLOW_PREFIX} pushed`;
    const running = asTask(await client.sendMessage(runningTurn(ACME, text, hook)));
    const delivered = () =>
      receiver.received
        .filter((entry) => entry.path === `/${binding}`)
        .map((entry) => entry.json as { statusUpdate?: PushedStatus & { taskId: string }; task?: PushedStatus & { id: string } })
        // A status update, or the Task a turn's end is pushed as (push-events: terminal).
        .map(({ statusUpdate, task }) => (task ? { taskId: task.id, status: task.status } : statusUpdate))
        .filter((update) => update?.taskId === running.id);
    await expect.poll(() => delivered().at(-1)?.status.state, { timeout: 10_000, interval: 200 }).toBe('TASK_STATE_COMPLETED');
    expect(delivered().map((update) => update?.status.state)).not.toContain('TASK_STATE_FAILED');
    expect((await getTask(ACME, running.id)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
