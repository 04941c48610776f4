/**
 * What the gateway core relays (gateway-harness.ts): each event as it comes, every event recorded in
 * the registry, secrets iac-code echoes redacted, and every event fanned out to the task's subscribers.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { StreamResponse } from '../../src/model/index.js';
import { Feed, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { collect } from '../support/collect.js';
import { ALICE, openStream, setup } from './gateway-harness.js';

describe('gateway: streaming pass-through', () => {
  it('yields each event before the upstream has produced the next one', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const upstream = stubUpstream({ sendStreamingMessage: () => feed.stream() });
    const { gateway } = setup(upstream);
    const iterator = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual(taskFrame('T', 'C'));
    expect(feed.produced).toBe(1);
    feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 'Hello '));
    expect((await iterator.next()).value).toMatchObject({ statusUpdate: { status: { message: { parts: [{ text: 'Hello ' }] } } } });
    expect(feed.produced).toBe(2);
    feed.end();
    expect((await iterator.next()).done).toBe(true);
  }, 2000); // a buffering relay never hands out the first event: fail fast

  it('has recorded every event, in order, when the stream ends (Redis registry)', async () => {
    await requireRedis();
    const redis = new Redis(REDIS_URL);
    const prefix = `a2a-bridge-test:${randomUUID()}:`;
    const registry = createRedisTaskRegistry({ redis, prefix, idleTtlMs: 60_000, historyLimit: 100 });
    try {
      const feed = new Feed().push(taskFrame('T', 'C'));
      for (let i = 0; i < 30; i++) feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', `chunk-${i}`));
      feed.push(statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
      feed.end();
      const { gateway } = setup(stubUpstream({ sendStreamingMessage: () => feed.stream() }), { registry });
      const events = await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE));
      expect(events).toHaveLength(32);
      const stored = await registry.get('T', ALICE.principal);
      expect(stored?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      // The caller's message first: the agent's opening Task held none (recording.ts), as a blocking answer's record.
      expect(stored?.history?.map((m) => m.parts[0]?.text)).toEqual(['make vpc', ...Array.from({ length: 30 }, (_, i) => `chunk-${i}`)]);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('records a follow-up user message into the task history before the turn', async () => {
    const first = new Feed().push(taskFrame('T', 'C', [userMessage({ text: 'one' })]), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    first.end();
    const second = new Feed().push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 'reply'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    second.end();
    const feeds = [first, second];
    const { gateway, registry } = setup(stubUpstream({ sendStreamingMessage: () => feeds.shift()!.stream() }));
    await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C', text: 'one' }) }, ALICE));
    await collect(gateway.sendStreamingMessage({ message: userMessage({ taskId: 'T', text: 'two' }) }, ALICE));
    const stored = await registry.get('T', ALICE.principal);
    expect(stored?.history?.map((m) => m.parts[0]?.text)).toEqual(['one', 'two', 'reply']);
  });
});

describe('gateway: redaction of echoed secrets', () => {
  it('replaces the secrets iac-code echoes in the first Task frame, passes clean events untouched', async () => {
    const secrets = {
      cwd: '/home/user/project',
      iac_code_api_key: 'sk-live-123456789',
      alibaba_cloud_access_key_id: 'LTAI-id-value',
      alibaba_cloud_access_key_secret: 'ak-secret-value',
      alibaba_cloud_security_token: 'sts-token-value',
      alibaba_cloud_region_id: 'cn-hangzhou',
      llm_headers: { Authorization: 'Bearer llm-header-value', 'X-Trace': 't' },
    };
    const echoed = taskFrame('T', 'C', [userMessage({ contextId: 'C', metadata: { iac_code: secrets } })]);
    const clean = statusFrame('T', 'C', 'TASK_STATE_WORKING', 'Hello ');
    const feed = new Feed().push(echoed, clean, statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const { gateway, registry } = setup(stubUpstream({ sendStreamingMessage: () => feed.stream() }));
    const events = await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C', metadata: { iac_code: secrets } }) }, ALICE));

    const first = events[0] as Extract<StreamResponse, { task: unknown }>;
    expect(first.task.history?.[0]?.metadata).toEqual({
      iac_code: {
        cwd: '/home/user/project',
        iac_code_api_key: '[REDACTED]',
        alibaba_cloud_access_key_id: '[REDACTED]',
        alibaba_cloud_access_key_secret: '[REDACTED]',
        alibaba_cloud_security_token: '[REDACTED]',
        alibaba_cloud_region_id: 'cn-hangzhou',
        llm_headers: '[REDACTED]',
      },
    });
    expect(events[1]).toBe(clean);
    const everything = JSON.stringify([events, await registry.get('T', ALICE.principal)]);
    for (const value of ['sk-live-123456789', 'LTAI-id-value', 'ak-secret-value', 'sts-token-value', 'llm-header-value']) {
      expect(everything).not.toContain(value);
    }
    // The upstream's own object was not modified.
    expect((echoed as { task: { history: Array<{ metadata: unknown }> } }).task.history[0]?.metadata).toEqual({ iac_code: secrets });
  });
});

describe('gateway: event hub', () => {
  it('fans every event of a task out to each subscriber until the turn ends', async () => {
    const feed = new Feed().push(taskFrame('T', 'C'));
    const { gateway } = setup(stubUpstream({ sendStreamingMessage: () => feed.stream() }));
    const { iterator } = await openStream(gateway, userMessage({ contextId: 'C' }));
    const subscribers = [collect(gateway.events.subscribe('T')), collect(gateway.events.subscribe('T'))];
    expect(gateway.events.subscriberCount('T')).toBe(2);
    feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', 'a'), statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const relayed: StreamResponse[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) relayed.push(next.value);
    const [one, two] = await Promise.all(subscribers);
    expect(one).toEqual(relayed);
    expect(two).toEqual(relayed);
    expect(relayed.map((event) => ('statusUpdate' in event ? event.statusUpdate.status.state : ''))).toEqual([
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
    expect(gateway.events.subscriberCount('T')).toBe(0);
  });
});
