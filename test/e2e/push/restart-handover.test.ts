/**
 * A gateway restarted mid-turn under `push-events: all` takes the turn over (README: a stream the
 * shutdown's drain cuts is followed from where it left off), and so does a second replica (`store: redis`,
 * `push-queue: redis-streams`) when the first stops. The chunks streamed while no gateway watched
 * are only in the Task its SubscribeToTask sends first, whose status is the WORKING already pushed: that
 * Task must be pushed too, or a receiver joining the chunks (`append: true`) reads a reply with holes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.js';
import { deleteRedisKeys, requireRedis } from '../../support/redis.js';
import { startSdkV1Agent, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { Receiver, type Received } from './harness.js';
import { rpc } from './unwatched.js';

let receiver: Receiver;
let agent: RunningSdkV1Agent;
let dir: string;
const prefix = `test-handover-${process.pid}-${randomBytes(4).toString('hex')}:`;
const settings = () => ({
  upstream: { url: agent.url },
  'push-notifications': true,
  'push-allow-private': true,
  'persistence-dir': dir,
  'push-events': 'all',
});

interface Artifact {
  artifactId: string;
  parts?: Array<{ text?: string }>;
}
interface Body {
  task?: { artifacts?: Artifact[] };
  artifactUpdate?: { append?: boolean; artifact: Artifact };
}

/** The reply as an A2A client assembles it: a Task sets each artifact as it stands, an update appends or replaces. */
function assembledText(received: Received[]): string {
  const artifacts = new Map<string, string>();
  const textOf = (artifact: Artifact) => (artifact.parts ?? []).map((part) => part.text ?? '').join('');
  for (const { json } of received) {
    const body = json as Body;
    for (const artifact of body.task?.artifacts ?? []) artifacts.set(artifact.artifactId, textOf(artifact));
    const update = body.artifactUpdate;
    if (update) {
      const before = update.append ? (artifacts.get(update.artifact.artifactId) ?? '') : '';
      artifacts.set(update.artifact.artifactId, before + textOf(update.artifact));
    }
  }
  return [...artifacts.values()].join('\n');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'push-handover-'));
  receiver = await new Receiver().up();
  agent = await startSdkV1Agent({ slowChunkDelayMs: 150 });
});
afterAll(async () => {
  await agent?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
  await deleteRedisKeys(prefix);
});

const completed = (received: Received[]) =>
  received.some(({ json }) => (json as { statusUpdate?: { status: { state: string } } }).statusUpdate?.status.state === 'TASK_STATE_COMPLETED');

it('a restart mid-turn: the chunks streamed meanwhile still reach the receiver', async () => {
  const first = await startTestGateway(settings());
  const sent = await rpc(first.url, 'SendMessage', {
    message: { messageId: 'm-handover', role: 'ROLE_USER', parts: [{ text: 'slow: across a restart' }] },
    configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}/rs` } },
  });
  expect(sent.error).toBeUndefined();
  await receiver.waitFor('/rs', 3, 10_000);
  await first.close();
  // Chunks stream on while no gateway watches.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const second = await startTestGateway(settings());
  try {
    await expect.poll(() => completed(receiver.at('/rs')), { timeout: 10_000, interval: 100 }).toBe(true);
    expect(assembledText(receiver.at('/rs'))).toBe('SDK echo (turn 1): slow: across a restart..........');
  } finally {
    await second.close();
  }
}, 30_000);

it('a second replica taking the turn over: the chunks streamed meanwhile still reach the receiver, each once', async () => {
  await requireRedis();
  const replica = async (name: string) =>
    startTestGateway({
      ...settings(),
      store: 'redis',
      'redis-prefix': prefix,
      'push-queue': 'redis-streams',
      'push-stream': `${prefix}push`,
      'push-retry-key': `${prefix}push:retry`,
      'push-dead-stream': `${prefix}push:dead`,
      'push-follow-lease-ms': 1500,
      'persistence-dir': await mkdtemp(join(dir, name)),
      'push-keys': [`k1:${Buffer.alloc(32, 7).toString('base64')}`],
    });
  const a = await replica('a-');
  const b = await replica('b-');
  try {
    const sent = await rpc(a.url, 'SendMessage', {
      message: { messageId: 'm-replicas', role: 'ROLE_USER', parts: [{ text: 'slow: two replicas' }] },
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}/rep` } },
    });
    expect(sent.error).toBeUndefined();
    await receiver.waitFor('/rep', 3, 10_000);
    await a.close();
    await expect.poll(() => completed(receiver.at('/rep')), { timeout: 20_000, interval: 100 }).toBe(true);
    const ids = receiver.at('/rep').map(({ headers }) => headers['a2a-event-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(assembledText(receiver.at('/rep'))).toBe('SDK echo (turn 1): slow: two replicas..........');
  } finally {
    await b.close();
  }
}, 40_000);
