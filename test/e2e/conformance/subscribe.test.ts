/**
 * SubscribeToTask as A2A 1.0 prescribes it, with the official a2a-js 1.x client on both bindings, in
 * front of the embedded demo agent and a real a2a-js 1.x server:
 * - a task still running upstream can be subscribed to although no stream of it passes through this
 *   gateway process (started with returnImmediately, or on another replica): the gateway subscribes upstream;
 * - several concurrent subscribers each get every event, in the same order, the Task first; closing
 *   one leaves the others running;
 * - a terminal task is UnsupportedOperation (-32004; HTTP+JSON 400 UNSUPPORTED_OPERATION).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { ErrorCode } from '../../../src/model/index.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import {
  TRANSPORTS,
  StreamReader,
  asTask,
  connect,
  outline,
  payloadRef,
  rejectionOf,
  sendRequest,
  wireCode,
  type Payload,
} from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';

const TERMINAL = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_REJECTED];

const returningAtOnce = (text: string): SendMessageRequest => ({
  ...sendRequest(text),
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
});

/** The events after the first (the Task snapshot), as a person would compare them: kind and state, in order. */
const afterSnapshot = (payloads: Payload[]): string[] => payloads.slice(1).map(outline);

// Every test starts and follows a task of its own, most of them a slow turn they wait out: side by side they
// wait once instead of one after another.
describe.concurrent.each(UPSTREAMS)('SubscribeToTask → $name', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGateway({ 'keepalive-ms': 0 });
  });
  afterAll(() => gateway.close());

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it('a task started with returnImmediately: three subscribers each get the Task first, then every event in the same order', async ({ expect }) => {
      const { client } = await connect(gateway.url, transport);
      const started = asTask(await client.sendMessage(returningAtOnce(`${upstream.slowPrefix} subscribe to me`)));
      expect(TERMINAL).not.toContain(started.status?.state);
      const readers = [0, 1, 2].map(() => new StreamReader(client.resubscribeTask({ tenant: '', id: started.id })));
      try {
        const firsts = await Promise.all(readers.map((reader) => reader.expectNext()));
        for (const first of firsts) {
          expect(first.$case).toBe('task');
          expect(payloadRef(first).taskId).toBe(started.id);
        }
        // Closing one subscriber leaves the others running.
        await readers[2]!.close();
        const [one, two] = await Promise.all([readers[0]!.rest(), readers[1]!.rest()]);
        expect(one.length).toBeGreaterThan(0);
        expect(one.map(outline).at(-1)).toBe(`statusUpdate:${upstream.endState}`);
        // Every event, in the same order: whatever the first subscriber saw after the snapshot, the second saw too.
        const tail = (payloads: Payload[]) => afterSnapshot([firsts[0]!, ...payloads]).slice(-5);
        expect(tail(two)).toEqual(tail(one));
        for (const payload of [...one, ...two]) expect(payloadRef(payload).taskId).toBe(started.id);
      } finally {
        await Promise.all(readers.map((reader) => reader.close()));
      }
    });

    it('a terminal task is UnsupportedOperation', async ({ expect }) => {
      const { client } = await connect(gateway.url, transport);
      const stream = new StreamReader(client.sendMessageStream(sendRequest(`${upstream.slowPrefix} cancel me then subscribe`)));
      const taskId = payloadRef(await stream.expectNext()).taskId;
      await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      await stream.rest();
      const error = await rejectionOf(client.resubscribeTask({ tenant: '', id: taskId }));
      expect(error).toMatchObject({ reason: 'UNSUPPORTED_OPERATION', code: wireCode(transport, ErrorCode.UnsupportedOperation) });
    });
  });
});

describe.concurrent.each(UPSTREAMS)('SubscribeToTask of a turn this gateway never saw → $name', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGatewayWithReachableUpstream({ 'keepalive-ms': 0 });
  });
  afterAll(() => gateway.close());

  it.for(TRANSPORTS)('a turn another client started at the agent itself is followed through the gateway (%s)', async (transport, { expect }) => {
    const direct = await connect(gateway.upstreamUrl!, transport);
    const { client } = await connect(gateway.url, transport);
    const started = asTask(await direct.client.sendMessage(returningAtOnce(`${upstream.slowPrefix} started elsewhere`)));
    const follower = new StreamReader(client.resubscribeTask({ tenant: '', id: started.id }));
    try {
      expect((await follower.expectNext()).$case).toBe('task');
      expect((await follower.rest()).map(outline).at(-1)).toBe(`statusUpdate:${upstream.endState}`);
    } finally {
      await follower.close();
    }
  });

  if (upstream.endState === TaskState.TASK_STATE_INPUT_REQUIRED) {
    it.for(TRANSPORTS)(
      'the registry says input-required, but another client started the next turn at the agent: followed (%s)',
      async (transport, { expect }) => {
        const { client } = await connect(gateway.url, transport);
        const first = asTask(await client.sendMessage(sendRequest('first turn, through the gateway')));
        expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        const direct = await connect(gateway.upstreamUrl!, transport);
        const next = returningAtOnce(`${upstream.slowPrefix} second turn, around the gateway`);
        next.message = { ...next.message!, taskId: first.id, contextId: first.contextId };
        await direct.client.sendMessage(next);
        const follower = new StreamReader(client.resubscribeTask({ tenant: '', id: first.id }));
        try {
          const snapshot = await follower.expectNext();
          expect(snapshot.$case).toBe('task');
          expect(payloadRef(snapshot).taskId).toBe(first.id);
          expect((await follower.rest()).map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_INPUT_REQUIRED}`);
        } finally {
          await follower.close();
        }
      },
    );
  }
});

describe.concurrent('SubscribeToTask on another replica (store: redis) → a2a-js 1.x server', () => {
  let agent: RunningSdkV1Agent;
  let replicas: TestGateway[];
  beforeAll(requireRedis);
  beforeAll(async () => {
    agent = await startSdkV1Agent();
    const shared = {
      store: 'redis',
      'redis-url': REDIS_URL,
      'redis-prefix': `a2a-bridge-test:subscribe:${randomUUID()}:`,
      tasks: { 'idle-ttl-ms': 600_000 },
      upstream: { url: agent.url },
      'keepalive-ms': 0,
    };
    replicas = [await startTestGateway(shared), await startTestGateway(shared)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await agent.close();
  });

  it.for(TRANSPORTS)('a stream open on replica A, a subscriber on replica B follows it to its end (%s)', async (transport, { expect }) => {
    const [a, b] = await Promise.all(replicas.map((replica) => connect(replica.url, transport)));
    const stream = new StreamReader(a!.client.sendMessageStream(sendRequest('slow: seen from the other replica')));
    const taskId = payloadRef(await stream.expectNext()).taskId;
    const follower = new StreamReader(b!.client.resubscribeTask({ tenant: '', id: taskId }));
    try {
      const first = await follower.expectNext();
      expect(first.$case).toBe('task');
      const followed = await follower.rest();
      expect(followed.map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_COMPLETED}`);
      expect((await stream.rest()).map(outline).at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_COMPLETED}`);
    } finally {
      await Promise.all([stream.close(), follower.close()]);
    }
  });
});
