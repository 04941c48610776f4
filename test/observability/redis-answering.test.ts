/**
 * The PING behind `/ready`: it answers at once from what is known and never waits for Redis. A connection
 * is not answering only once a PING went unanswered for longer than the calls on it wait (its
 * commandTimeout, redis-command-timeout-ms): a Redis slow but within that bound serves the calls.
 */
import { Command } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answeringProbe, READY_PING_DEFAULT_WITHIN_MS, type PingedRedis } from '../../src/observability/redis-answering.js';

function fakeConnection(commandTimeout?: number): PingedRedis & { sent: Command[]; status: string } {
  const sent: Command[] = [];
  return {
    sent,
    status: 'ready',
    ...(commandTimeout !== undefined ? { options: { commandTimeout } } : {}),
    sendCommand: (command: Command) => void sent.push(command),
    once: () => undefined,
  };
}

/** Lets the PING's promise reactions run. */
const settled = () => vi.advanceTimersByTimeAsync(0);

describe('answeringProbe', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('answers at once while a PING is outstanding, one PING at a time, another once the answer is a second old', async () => {
    const connection = fakeConnection(3_000);
    const probe = answeringProbe(connection, () => undefined);
    expect(probe.answering()).toBe(true);
    await vi.advanceTimersByTimeAsync(2_999);
    for (let i = 0; i < 5; i++) expect(probe.answering()).toBe(true);
    expect(connection.sent.map((command) => command.name)).toEqual(['ping']);
    connection.sent[0]!.resolve('PONG');
    await settled();
    await vi.advanceTimersByTimeAsync(999);
    expect(probe.answering()).toBe(true);
    expect(connection.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(probe.answering()).toBe(true);
    expect(connection.sent).toHaveLength(2);
  });

  it("a PING unanswered past the connection's commandTimeout: not answering, told once, until a PING is answered", async () => {
    const connection = fakeConnection(3_000);
    const late = vi.fn();
    const probe = answeringProbe(connection, late);
    probe.answering();
    const ping = connection.sent[0]!;
    await vi.advanceTimersByTimeAsync(3_000);
    expect(late).toHaveBeenCalledExactlyOnceWith(ping, 3_000);
    expect(probe.answering()).toBe(false);
    // ioredis's own timeout of the PING: already told, not told again.
    ping.reject(new Error('Command timed out'));
    await settled();
    expect(probe.toldLate(ping)).toBe(true);
    expect(late).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probe.answering()).toBe(false);
    expect(connection.sent).toHaveLength(2);
    connection.sent[1]!.resolve('PONG');
    await settled();
    expect(probe.answering()).toBe(true);
    expect(late).toHaveBeenCalledTimes(1);
  });

  it('without a commandTimeout of its own (redis-command-timeout-ms: 0), a PING is overdue after READY_PING_DEFAULT_WITHIN_MS', async () => {
    const connection = fakeConnection();
    const late = vi.fn();
    const probe = answeringProbe(connection, late);
    probe.answering();
    await vi.advanceTimersByTimeAsync(READY_PING_DEFAULT_WITHIN_MS - 1);
    expect(probe.answering()).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(probe.answering()).toBe(false);
    expect(late).toHaveBeenCalledExactlyOnceWith(connection.sent[0], READY_PING_DEFAULT_WITHIN_MS);
  });

  it('a PING that ioredis timed out before the probe did is told once, by the probe', async () => {
    const connection = fakeConnection(3_000);
    const late = vi.fn();
    const probe = answeringProbe(connection, late, { withinMs: 10_000 });
    probe.answering();
    const ping = connection.sent[0]!;
    ping.reject(new Error('Command timed out'));
    await settled();
    expect(late).toHaveBeenCalledExactlyOnceWith(ping, 10_000);
    expect(probe.toldLate(ping)).toBe(true);
    expect(probe.answering()).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(late).toHaveBeenCalledTimes(1);
  });

  it('a connection that is not ready is answering (its status tells), and is not PINGed', () => {
    const connection = fakeConnection(3_000);
    connection.status = 'reconnecting';
    const probe = answeringProbe(connection, () => undefined);
    expect(probe.answering()).toBe(true);
    expect(connection.sent).toEqual([]);
  });
});
