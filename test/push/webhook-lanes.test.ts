import { describe, expect, it } from 'vitest';
import { WebhookLanes, webhookOf } from '../../src/push/queue/webhook-lanes.js';

const drainTaken = (lanes: WebhookLanes<string>) => {
  const taken: Array<{ lane: string; item: string }> = [];
  for (let next = lanes.take(); next; next = lanes.take()) taken.push(next);
  return taken;
};

describe('webhook lanes', () => {
  it('hands out one item per lane at a time, in the order added, while other lanes go on', () => {
    const lanes = new WebhookLanes<string>();
    lanes.add('a', 'a1');
    lanes.add('a', 'a2');
    lanes.add('b', 'b1');
    expect(drainTaken(lanes).map((next) => next.item)).toEqual(['a1', 'b1']);
    expect([lanes.waiting(), lanes.inFlight()]).toEqual([1, 2]);

    lanes.add('b', 'b2');
    lanes.done('b');
    expect(drainTaken(lanes).map((next) => next.item)).toEqual(['b2']);
    lanes.done('a');
    expect(drainTaken(lanes).map((next) => next.item)).toEqual(['a2']);
    lanes.done('a');
    lanes.done('b');
    expect([lanes.waiting(), lanes.inFlight(), lanes.take()]).toEqual([0, 0, undefined]);
  });

  it('queued counts what a lane has waiting and in flight', () => {
    const lanes = new WebhookLanes<string>();
    expect(lanes.queued('a')).toBe(0);
    lanes.add('a', 'a1');
    lanes.add('a', 'a2');
    expect(lanes.queued('a')).toBe(2);
    lanes.take();
    expect(lanes.queued('a')).toBe(2);
    lanes.done('a');
    expect(lanes.queued('a')).toBe(1);
    lanes.take();
    lanes.done('a');
    expect(lanes.queued('a')).toBe(0);
  });

  it('drain returns what waits; a lane in flight stays busy until done', () => {
    const lanes = new WebhookLanes<string>();
    lanes.add('a', 'a1');
    lanes.add('a', 'a2');
    lanes.take();
    expect(lanes.drain()).toEqual(['a2']);
    lanes.add('a', 'a3');
    expect(lanes.take()).toBeUndefined();
    lanes.done('a');
    expect(lanes.take()).toEqual({ lane: 'a', item: 'a3' });
  });

  it('an item put back stays first of its lane, which hands out nothing until woken, while the others go on', () => {
    const lanes = new WebhookLanes<string>();
    lanes.add('a', 'a1');
    lanes.add('a', 'a2');
    lanes.add('b', 'b1');
    expect(lanes.take()).toEqual({ lane: 'a', item: 'a1' });
    lanes.putBack('a', 'a1-retry');
    lanes.add('a', 'a3');
    expect(drainTaken(lanes)).toEqual([{ lane: 'b', item: 'b1' }]);
    lanes.wake('a');
    expect(drainTaken(lanes)).toEqual([{ lane: 'a', item: 'a1-retry' }]);
    lanes.done('a');
    expect(drainTaken(lanes)).toEqual([{ lane: 'a', item: 'a2' }]);
  });

  it('moves an item sorted behind others to the front of its lane', () => {
    const lanes = new WebhookLanes<number>((x, y) => x - y);
    for (const item of [3, 1, 2]) lanes.add('a', item);
    expect(lanes.moveToFront('a', (item) => item === 3)).toBe(true);
    expect(lanes.moveToFront('a', (item) => item === 9)).toBe(false);
    expect(lanes.moveToFront('b', () => true)).toBe(false);
    expect(lanes.drain()).toEqual([3, 1, 2]);
  });

  it('hands the next item to the owner with the fewest in flight, the lane ready first between equals', () => {
    const lanes = new WebhookLanes<string>();
    for (const n of [1, 2, 3]) lanes.add(`alice-${n}`, `a${n}`, 'alice');
    lanes.add('bob-1', 'b1', 'bob');
    lanes.add('bob-2', 'b2', 'bob');
    expect(lanes.take()?.item).toBe('a1');
    expect(lanes.take()?.item).toBe('b1');
    expect(lanes.take()?.item).toBe('a2');
    lanes.done('alice-1');
    // Alice 1 in flight, Bob 1: her lane was ready first.
    expect(lanes.take()?.item).toBe('a3');
    // Bob's lane waits with 1 in flight against Alice's 2.
    expect(lanes.someoneUnderServedWaits()).toBe(true);
    expect(lanes.take()?.item).toBe('b2');
    expect([lanes.take(), lanes.someoneUnderServedWaits()]).toEqual([undefined, false]);
  });

  it('a webhook is one config of one task of one owner, at one URL', () => {
    const job = { owner: 'alice', taskId: 't1', configId: 'c1', url: 'https://hooks.example/a' };
    expect(webhookOf(job)).toBe(webhookOf({ ...job }));
    for (const other of [{ owner: 'bob' }, { taskId: 't2' }, { configId: 'c2' }, { url: 'https://hooks.example/b' }]) {
      expect(webhookOf({ ...job, ...other })).not.toBe(webhookOf(job));
    }
  });
});
