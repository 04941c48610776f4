import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { releaseBody } from '../../src/upstream/decoded-body.js';
import { readSse, type SseMessage } from '../../src/upstream/sse-reader.js';

async function* chunks(parts: Array<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
  for (const part of parts) yield part;
}

type Body = AsyncIterable<Uint8Array | string>;

/** readSse reads a Node stream through its events and anything else through its async iterator: both must agree. */
const BODIES: Array<[string, (source: AsyncGenerator<Uint8Array | string>) => Body]> = [
  ['an async iterable', (source) => source],
  ['a Node stream', (source) => Readable.from(source, { objectMode: false })],
];

/** Split bytes at the given cut points. */
function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

// The captured iac-code framing: CRLF, a blank line between frames, no event: line, pings, and a
// multi-byte character in the payload.
const CAPTURED =
  'data: {"result":{"task":{"id":"T"}},"id":"s1","jsonrpc":"2.0"}\r\n\r\n' +
  ': ping - 2026-11-29 11:25:08.861112+00:00\r\n\r\n' +
  'data: {"result":{"statusUpdate":{"text":"vpc 创建完成 ✓"}},"id":"s1","jsonrpc":"2.0"}\r\n\r\n' +
  'event: error\r\ndata: {"error":{"code":-32603,"message":"boom"},"id":"s1","jsonrpc":"2.0"}\r\n\r\n';

const EXPECTED: SseMessage[] = [
  { data: '{"result":{"task":{"id":"T"}},"id":"s1","jsonrpc":"2.0"}' },
  { data: '{"result":{"statusUpdate":{"text":"vpc 创建完成 ✓"}},"id":"s1","jsonrpc":"2.0"}' },
  { event: 'error', data: '{"error":{"code":-32603,"message":"boom"},"id":"s1","jsonrpc":"2.0"}' },
];

describe.each(BODIES)('readSse over %s', (_kind, asBody) => {
  async function collect(parts: Array<Uint8Array | string>): Promise<SseMessage[]> {
    const out: SseMessage[] = [];
    for await (const message of readSse(asBody(chunks(parts)))) out.push(message);
    return out;
  }

  /** `bytes` read as `expected` cut at every single point, and at random sets of points. */
  async function expectSameHoweverSplit(bytes: Uint8Array, expected: SseMessage[]): Promise<void> {
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await collect(splitAt(bytes, [cut]))).toEqual(expected);
    }
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        expect(await collect(splitAt(bytes, cuts))).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  }

  it('parses CRLF frames, skips ping comments and keeps event: error', async () => {
    expect(await collect([CAPTURED])).toEqual(EXPECTED);
  });

  it('gives the same messages however the bytes are split (inside CRLF, inside UTF-8 characters)', async () => {
    const bytes = encode(CAPTURED);
    // Every single cut point, including between \r and \n and inside multi-byte characters.
    await expectSameHoweverSplit(bytes, EXPECTED);
  });

  it('survives a byte-at-a-time body', async () => {
    const bytes = encode(CAPTURED);
    const single = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    expect(await collect(single)).toEqual(EXPECTED);
  });

  it('decodes as one decoder of the whole body would, however it is split: its BOM dropped, a U+FEFF in it kept, bad bytes replaced', async () => {
    // Bad bytes in the first frame; the second's U+FEFF opens a chunk of whole characters when cut just before it.
    const bytes = Buffer.concat([encode('\ufeffdata: x'), Uint8Array.of(0xff, 0xc3, 0x28), encode('y\r\n\r\ndata: \ufeffb 创建\n\ndata: c\n\n')]);
    const expected = [{ data: 'x\ufffd\ufffd(y' }, { data: '\ufeffb 创建' }, { data: 'c' }];
    expect(await collect([bytes])).toEqual(expected);
    await expectSameHoweverSplit(bytes, expected);
  });

  it('decodes chunks that end on a whole character without the streaming decoder, the first too when it opens with no BOM', async () => {
    const decode = vi.spyOn(TextDecoder.prototype, 'decode');
    try {
      const frames = Array.from({ length: 50 }, (_, n) => encode(`data: {"n":${n},"text":"第${n}块"}\n\n`));
      expect(await collect(frames)).toHaveLength(50);
      // Node's decoder of a stream goes through ICU, some 4,500 instructions a chunk under callgrind; of whole input, its fast path.
      expect(decode.mock.calls.filter(([, options]) => options?.stream === true)).toHaveLength(0);
      // A body that opens with a BOM has its first chunk read by the streaming decoder, which drops it; the rest whole.
      decode.mockClear();
      expect(await collect([encode('\ufeffdata: a\n\n'), ...frames])).toEqual([{ data: 'a' }, ...(await collect(frames))]);
      expect(decode.mock.calls.filter(([, options]) => options?.stream === true)).toHaveLength(1);
    } finally {
      decode.mockRestore();
    }
  });

  it('keeps a U+FEFF that opens the first chunk needing the streaming decoder past the body start', async () => {
    // The body's first chunk is read whole; the second opens with U+FEFF and ends inside 创, so the streaming decoder reads it.
    const bytes = encode('data: a\n\ndata: \ufeffb 创建\n\n');
    const second = bytes.indexOf(0xef);
    const inside = bytes.indexOf(0xe5) + 1;
    expect(await collect([bytes.subarray(0, second), bytes.subarray(second, inside), bytes.subarray(inside)])).toEqual([
      { data: 'a' },
      { data: '\ufeffb 创建' },
    ]);
  });

  it('joins multi-line data with \\n and reads id and LF-only frames', async () => {
    expect(await collect(['id: 7\nevent: note\ndata: line one\ndata: line two\n\n', 'data:no-space\n\n'])).toEqual([
      { id: '7', event: 'note', data: 'line one\nline two' },
      { data: 'no-space' },
    ]);
  });

  it.each([
    ['no newline at all', 'data: {"a":1}\r\n\r\ndata: {"last":true}'],
    ['one CRLF only', 'data: {"a":1}\r\n\r\ndata: {"last":true}\r\n'],
    ['a dangling CR', 'data: {"a":1}\r\n\r\ndata: {"last":true}\r'],
    ['one LF only', 'data: {"a":1}\n\ndata: {"last":true}\n'],
  ])('flushes a last frame without its blank line (%s)', async (_label, body) => {
    expect(await collect([body])).toEqual([{ data: '{"a":1}' }, { data: '{"last":true}' }]);
  });

  it('yields each frame as soon as it is complete, before the next chunk arrives', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* body(): AsyncGenerator<string> {
      yield 'data: first\r\n\r\ndata: sec';
      await gate;
      yield 'ond\r\n\r\n';
    }
    const iterator = readSse(asBody(body()));
    const first = await iterator.next();
    expect(first.value).toEqual({ data: 'first' });
    const pending = iterator.next();
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    expect((await pending).value).toEqual({ data: 'second' });
    expect((await iterator.next()).done).toBe(true);
  });

  it('yields nothing for an empty body or comments only', async () => {
    expect(await collect([])).toEqual([]);
    expect(await collect([': ping\r\n\r\n: ping\r\n\r\n'])).toEqual([]);
  });

  it('stops reading the body when the consumer stops', async () => {
    let finished = false;
    async function* body(): AsyncGenerator<string> {
      try {
        yield 'data: one\n\n';
        yield 'data: two\n\n';
        yield 'data: three\n\n';
      } finally {
        finished = true;
      }
    }
    const source = asBody(body());
    for await (const message of readSse(source)) {
      expect(message.data).toBe('one');
      break;
    }
    // A Node stream is its response's: its owner lets it end (or cuts it), see releaseBody below.
    if (source instanceof Readable) releaseBody(source, false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(finished).toBe(true);
  });
});

describe('readSse over a Node stream that breaks', () => {
  it('delivers the frames before an error, then throws it', async () => {
    const body = new Readable({ read() {} });
    body.push('data: one\n\n');
    const iterator = readSse(body);
    expect((await iterator.next()).value).toEqual({ data: 'one' });
    const failure = new Error('socket hang up');
    const pending = iterator.next();
    body.destroy(failure);
    await expect(pending).rejects.toBe(failure);
  });

  it('throws when the body closes before its end (a cut connection)', async () => {
    const body = new Readable({ read() {} });
    const iterator = readSse(body);
    const pending = iterator.next();
    body.push('data: par');
    body.destroy();
    await expect(pending).rejects.toThrow('closed before its end');
  });

  it('does not read ahead while a parsed frame waits for the consumer', async () => {
    const body = new Readable({ read() {}, highWaterMark: 1 });
    const iterator = readSse(body);
    const first = iterator.next();
    body.push('data: one\n\ndata: two\n\n');
    expect((await first).value).toEqual({ data: 'one' });
    body.push('data: three\n\n');
    await new Promise((resolve) => setImmediate(resolve));
    // 'three' stays in the stream's buffer: the reader paused it while 'two' was waiting.
    expect(body.readableFlowing).toBe(false);
    expect(body.readableLength).toBeGreaterThan(0);
    expect((await iterator.next()).value).toEqual({ data: 'two' });
    expect((await iterator.next()).value).toEqual({ data: 'three' });
    body.push(null);
    expect((await iterator.next()).done).toBe(true);
  });
});

describe('readSse over an undici-like body', () => {
  // undici's BodyReadable errors when destroyed before its end: nobody listens any more by then.
  const undiciLike = () =>
    new Readable({
      read() {},
      destroy(error, callback) {
        callback(error ?? (this.readableEnded ? null : new Error('Request aborted')));
      },
    });

  it('leaving early leaves the body to its owner; a failed call cuts it at once, its error going nowhere', async () => {
    const body = undiciLike();
    body.push('data: one\n\ndata: two\n\n');
    for await (const message of readSse(body)) {
      expect(message.data).toBe('one');
      break;
    }
    expect(body.destroyed).toBe(false);
    releaseBody(body, true);
    expect(body.destroyed).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.listenerCount('error')).toBeGreaterThan(0);
  });

  it('a body its caller is done with may still end by itself (no abort); one that does not is cut soon after', async () => {
    const ending = undiciLike();
    releaseBody(ending, false);
    ending.push('data: late\n\n');
    ending.push(null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ending.readableEnded).toBe(true);
    const endless = undiciLike();
    endless.push('data: more\n\n');
    releaseBody(endless, false);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(endless.destroyed).toBe(true);
  });
});

describe.concurrent('readSse with an idle bound', () => {
  const IDLE_MS = 150;
  const wentIdle = new Error('went idle');
  const idle = { ms: IDLE_MS, error: () => wentIdle };
  const frame = (n: number) => `data: {"n":${n}}\n\n`;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it.each(BODIES)(
    'over %s: a body that pings while it thinks is never cut; one that then sends nothing fails with the bound',
    async (_kind, asBody) => {
      // A bound of its own, five pings to it: a stall of the test process shorter than four fifths of it cuts nothing.
      const bound = { ms: 500, error: () => wentIdle };
      async function* source(): AsyncGenerator<string> {
        yield frame(1);
        // Four bounds' worth of time, a comment every fifth of a bound: alive.
        for (let i = 0; i < 20; i++) {
          await sleep(bound.ms / 5);
          yield ': ping\n\n';
        }
        yield frame(2);
        await sleep(bound.ms * 4);
        yield frame(3);
      }
      const read: string[] = [];
      const started = Date.now();
      const failure = await (async () => {
        for await (const message of readSse(asBody(source()), bound)) read.push(message.data);
      })().catch((error: unknown) => error);
      expect(read).toEqual(['{"n":1}', '{"n":2}']);
      expect(failure).toBe(wentIdle);
      expect(Date.now() - started).toBeLessThan(bound.ms * 8);
    },
  );

  it('a consumer slower than the bound is not the server going quiet: what waits unread is read', async () => {
    // As a socket does: what the server sent waits in the stream's buffer until it is read.
    const body = new Readable({ read: () => undefined });
    for (const n of [1, 2, 3]) body.push(encode(frame(n)));
    body.push(null);
    const read: string[] = [];
    for await (const message of readSse(body, idle)) {
      read.push(message.data);
      await sleep(IDLE_MS * 2);
    }
    expect(read).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it('no bound without one, or with 0', async () => {
    async function* late(): AsyncGenerator<string> {
      await sleep(IDLE_MS * 2);
      yield frame(1);
    }
    for (const bound of [undefined, { ms: 0, error: () => wentIdle }]) {
      const read: string[] = [];
      for await (const message of readSse(late(), bound)) read.push(message.data);
      expect(read).toEqual(['{"n":1}']);
    }
  });
});
