/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 1.x agent that asks a question (INPUT_REQUIRED) and,
 * answered in the same task, opens the answer's stream with the task as it stands (still INPUT_REQUIRED: a 1.x
 * agent must open every stream with a Task), takes a moment, then works, writes an artifact and completes. A second
 * client subscribes to the task (SubscribeToTask) in that moment. Spoken to directly, the agent streams that client
 * the answer; through the gateway, which asked the agent's GetTask first and heard INPUT_REQUIRED, the client was
 * given the Task alone and its stream ended: it never saw the answer. A task waiting for its answer with nothing
 * running is still its Task alone (docs/core.md, `subscribable`). And that opening Task named the turn paused
 * (turn-naming.ts), so a second answer sent meanwhile rode along into the running one: the agent ran both, and the
 * first client's stream failed ("Stream ordering violation: received task in task lifecycle stream").
 */
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { regionPlanner } from '../../support/region-planner.js';
import { collect } from '../../support/collect.js';
import { sendRequest, type Payload, type TransportName } from '../../support/sdk-v1-client.js';
import { Gates, startSdkTestAgent, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { connectClient, outline, reconstructedText, StreamReader } from '../upstreams/sdk1-client.js';

const gates = new Gates();
const asksThenAnswers = regionPlanner({ reopensTask: true, beforeWorking: () => gates.pass() });

const payloads = async (stream: AsyncIterable<{ payload?: Payload }>): Promise<Payload[]> =>
  (await collect(stream)).flatMap((event) => (event.payload ? [event.payload] : []));

const idsOf = (payload: Payload | undefined) => {
  if (payload?.$case !== 'task') throw new Error(`expected a Task first, got ${payload?.$case}`);
  return { taskId: payload.value.id, contextId: payload.value.contextId };
};

/**
 * A question asked at `url`, then answered (streamed or blocking) by one client while another subscribes to the
 * task with the answer's turn held before it says it works: what the subscriber is streamed.
 */
async function subscribedWhileAnswered(url: string, binding: TransportName, answer: 'streamed' | 'blocking'): Promise<Payload[]> {
  const sender = await connectClient(url, binding);
  const watcher = await connectClient(url, binding);
  const ids = idsOf((await payloads(sender.sendMessageStream(sendRequest('plan a VPC'))))[0]);
  gates.reset(1);
  const answered =
    answer === 'streamed' ? payloads(sender.sendMessageStream(sendRequest('eu-west', ids))) : sender.sendMessage(sendRequest('eu-west', ids));
  await expect.poll(() => gates.reached).toBe(1);
  const watching = new StreamReader(watcher.resubscribeTask({ tenant: '', id: ids.taskId }));
  expect((await watching.next())?.$case).toBe('task');
  gates.open();
  await answered;
  return watching.rest();
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('subscribing to a task while its answer runs, a 1.x client over %s', (binding) => {
  let agent: RunningTestAgent;
  let gateway: TestGateway;

  beforeAll(async () => {
    agent = await startSdkTestAgent(
      {
        name: 'asks-then-answers',
        description: 'Asks for a region, then plans in it.',
        skill: { id: 'plan', name: 'Plan', description: 'Plans a VPC in the region the user names.' },
        rest: true,
      },
      asksThenAnswers,
    );
    gateway = await startTestGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    gates.open();
    await gateway?.close();
    await agent?.close();
  });

  const whole = ['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED'];

  it.each(['streamed', 'blocking'] as const)('is streamed the %s answer to its end, as the agent streams it', async (answer) => {
    const direct = await subscribedWhileAnswered(agent.url, binding, answer);
    expect(direct.map(outline)).toEqual(whole);
    const viaGateway = await subscribedWhileAnswered(gateway.url, binding, answer);
    expect(viaGateway.map(outline)).toEqual(whole);
    expect(reconstructedText(viaGateway)).toBe('A VPC in eu-west');
  });

  it('a second answer while the first runs is refused as a turn in progress, never sent to the agent', async () => {
    const client = await connectClient(gateway.url, binding);
    const ids = idsOf((await payloads(client.sendMessageStream(sendRequest('plan a VPC'))))[0]);
    gates.reset(1);
    const first = new StreamReader(client.sendMessageStream(sendRequest('eu-west', ids)));
    expect((await first.next())?.$case).toBe('task');
    await expect.poll(() => gates.reached).toBe(1);
    await expect(client.sendMessage(sendRequest('us-east', ids))).rejects.toThrow(/already has a turn in progress/);
    expect(gates.reached).toBe(1);
    gates.open();
    expect((await first.rest()).map(outline)).toEqual(whole);
  });

  it('is given the Task alone, question and all, of a task waiting for its answer with nothing running', async () => {
    const client = await connectClient(gateway.url, binding);
    const ids = idsOf((await payloads(client.sendMessageStream(sendRequest('plan a VPC'))))[0]);
    const subscribed = await payloads(client.resubscribeTask({ tenant: '', id: ids.taskId }));
    expect(subscribed.map(outline)).toEqual(['task']);
    const [task] = subscribed;
    expect(task?.$case === 'task' && task.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });
});
