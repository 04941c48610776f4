/** The machinery under held jobs and held changes: order, the bound, the backoff, a part kept, the journal. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { holdInOrder, type HeldInOrderOptions, type HeldWording, type Offered } from '../../src/push/queue/held-in-order.js';
import { waitUntil } from '../support/wait-until.js';

interface Item {
  jobId: string;
  taskId: string;
  parts: string[];
}

const item = (id: string, ...parts: string[]): Item => ({ jobId: id, taskId: 't', parts });

const WORDING: HeldWording = {
  journalUnopened: 'journal unopened',
  heldFromBefore: 'held from before',
  notJournaled: 'not journaled',
  holding: { journaled: 'holding (journaled)', inMemory: 'holding in memory' },
  allTaken: 'all taken',
  atStop: { journaled: 'journaled at stop', lost: 'lost at stop' },
};

function recordingLogger() {
  const lines: Array<{ level: string; fields: object; message: string }> = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

/** Takes the parts it is told are reachable; an item with parts left over is refused with only those kept. */
function partTaker() {
  const taken: string[] = [];
  const reachable = new Set<string>();
  const offered: string[] = [];
  const offer = async (held: Item): Promise<Offered<Item>> => {
    offered.push(held.jobId);
    const now = held.parts.filter((part) => reachable.has(part));
    taken.push(...now);
    const rest = held.parts.filter((part) => !reachable.has(part));
    if (rest.length === 0) return { taken: true };
    return now.length > 0 ? { taken: false, rest: { ...held, parts: rest } } : { taken: false };
  };
  return { offer, taken, reachable, offered };
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
});

function options(overrides: Partial<HeldInOrderOptions<Item>> & Pick<HeldInOrderOptions<Item>, 'offer'>): HeldInOrderOptions<Item> {
  return { wording: WORDING, logger: recordingLogger().logger, whenFull: () => undefined, retryMs: 5, maxRetryMs: 20, ...overrides };
}

describe('holdInOrder', () => {
  it('offers the held items in order, stops at the first one refused, and keeps only the rest of one partly taken', async () => {
    const { offer, taken, reachable } = partTaker();
    const { logger, lines } = recordingLogger();
    const held = holdInOrder(options({ offer, logger }));
    await held.ready;
    await held.holdRefused(item('a', 'a1', 'a2'), { taskId: 't' });
    await held.hold(item('b', 'b1'));
    expect(held.newItemsWait()).toBe(true);

    reachable.add('a1');
    await waitUntil(async () => taken.includes('a1'));
    // b stays behind a, whose second part is still refused: a1 is not taken twice.
    reachable.add('b1');
    await new Promise((done) => setTimeout(done, 30));
    expect(taken).toEqual(['a1']);
    reachable.add('a2');
    await waitUntil(async () => held.held() === 0);
    expect(taken).toEqual(['a1', 'a2', 'b1']);
    expect(held.newItemsWait()).toBe(false);
    expect(lines.map((line) => line.message)).toEqual(['holding in memory', 'all taken']);
    await held.stop();
  });

  it('asks whenFull once maxHeld items are held, and holds nothing more', async () => {
    const { offer } = partTaker();
    const full: Array<{ id: string; held: number; maxHeld: number }> = [];
    const held = holdInOrder(options({ offer, maxHeld: 2, retryMs: 60_000, whenFull: (it, count) => void full.push({ id: it.jobId, ...count }) }));
    await held.ready;
    for (const id of ['a', 'b', 'c']) await held.hold(item(id, id));
    expect(held.held()).toBe(2);
    expect(full).toEqual([{ id: 'c', held: 2, maxHeld: 2 }]);
    await held.stop();
  });

  it('waits twice as long after each refused round, up to maxRetryMs, and from the start again once all is taken', async () => {
    vi.useFakeTimers();
    const { offer, offered, reachable } = partTaker();
    const held = holdInOrder(options({ offer, retryMs: 100, maxRetryMs: 400 }));
    await held.ready;
    await held.holdRefused(item('a', 'a1'), {});
    const offersAt = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return offered.length;
    };
    expect([await offersAt(99), await offersAt(1)]).toEqual([0, 1]);
    expect([await offersAt(199), await offersAt(1)]).toEqual([1, 2]);
    expect([await offersAt(399), await offersAt(1)]).toEqual([2, 3]);
    expect([await offersAt(399), await offersAt(1)]).toEqual([3, 4]);
    reachable.add('a1');
    expect(await offersAt(400)).toBe(5);
    expect(held.held()).toBe(0);

    await held.holdRefused(item('b', 'b1'), {});
    expect([await offersAt(99), await offersAt(1)]).toEqual([5, 6]);
    await held.stop();
  });

  it('journals what is held, the rest of a partly taken one too, and holds it first at the next start', async () => {
    const journalDir = join(mkdtempSync(join(tmpdir(), 'a2a-held-in-order-')), 'held');
    dirs.push(journalDir);
    const before = partTaker();
    before.reachable.add('a1');
    const firstLog = recordingLogger();
    const first = holdInOrder(options({ offer: before.offer, logger: firstLog.logger, retryMs: 60_000, journalDir }));
    await first.ready;
    await first.holdRefused(item('a', 'a1', 'a2'), {});
    await first.hold(item('b', 'b1'));
    await first.stop();
    expect(before.taken).toEqual(['a1']);
    expect(firstLog.lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'holding (journaled)'],
      ['warn', 'journaled at stop'],
    ]);

    const after = partTaker();
    for (const part of ['a1', 'a2', 'b1']) after.reachable.add(part);
    const { logger, lines } = recordingLogger();
    const second = holdInOrder(options({ offer: after.offer, logger, journalDir }));
    await second.ready;
    expect(second.held()).toBe(2);
    expect(lines[0]).toMatchObject({ level: 'warn', fields: { held: 2 }, message: 'held from before' });
    await waitUntil(async () => second.held() === 0);
    expect(after.taken).toEqual(['a2', 'b1']);
    await second.stop();
  });

  it('logs what is still refused at stop as lost when there is no journal', async () => {
    const { offer } = partTaker();
    const { logger, lines } = recordingLogger();
    const held = holdInOrder(options({ offer, logger, retryMs: 60_000 }));
    await held.ready;
    await held.holdRefused(item('a', 'a1'), {});
    await held.stop();
    expect(lines.at(-1)).toMatchObject({ level: 'error', fields: { lost: 1 }, message: 'lost at stop' });
    expect(held.held()).toBe(0);
    expect(held.stopped()).toBe(true);
  });
});
