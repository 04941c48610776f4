import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { A2AError } from '../../../../src/model/index.js';
import { looksLikeEnvelope, openingByte, relayedAnswer } from '../../../../src/surfaces/v025/relay/relay-answer.js';

const ENVELOPE = JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'no skill' } });
const never = new AbortController().signal;

/** An answer whose body comes in exactly these chunks. */
function answerOf(chunks: Array<string | Uint8Array>, status: number, headers: Record<string, string> = {}): Response {
  const queue = chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  return new Response(body, { status, headers });
}

/** The data of a one-frame SSE answer. */
async function oneFrame(response: Response): Promise<unknown> {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const data = (await response.text()).split('\n').filter((line) => line.startsWith('data:'));
  expect(data).toHaveLength(1);
  return JSON.parse(data[0]!.slice(5));
}

async function failure(answer: Promise<Response>): Promise<{ code: number; message: string }> {
  const error = await answer.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(A2AError);
  return { code: (error as A2AError).code, message: (error as A2AError).message };
}

describe('the first byte of a JSON text', () => {
  it('skips JSON whitespace and a UTF-8 BOM; the start of a BOM is not yet known', () => {
    const bytes = (...values: number[]) => Uint8Array.from(values);
    expect(openingByte(Buffer.from(' \r\n\t{'))).toBe(0x7b);
    expect(openingByte(Buffer.from('\ufeff {'))).toBe(0x7b);
    expect(openingByte(Buffer.from('<html>'))).toBe(0x3c);
    expect(openingByte(Buffer.from('  '))).toBeUndefined();
    expect(openingByte(bytes())).toBeUndefined();
    expect(openingByte(bytes(0xef, 0xbb))).toBeUndefined();
    expect(openingByte(bytes(0xef, 0x41))).toBe(0xef);
  });

  it('an object naming jsonrpc looks like an envelope without a parse; an array or a page does not', () => {
    expect(looksLikeEnvelope(Buffer.from(ENVELOPE))).toBe(true);
    expect(looksLikeEnvelope(Buffer.from(`[${ENVELOPE}]`))).toBe(false);
    expect(looksLikeEnvelope(Buffer.from('{"detail":"Not Found"}'))).toBe(false);
    expect(looksLikeEnvelope(Buffer.from('<p>"jsonrpc"</p>'))).toBe(false);
  });
});

describe('what the relay makes of an answer', () => {
  it('a compressed envelope to a streaming method is one frame holding it; a compressed page is -32006', async () => {
    const gzip = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    expect(await oneFrame(await relayedAnswer('message/stream', answerOf([gzipSync(ENVELOPE)], 500, gzip), never))).toEqual(JSON.parse(ENVELOPE));
    const page = answerOf([gzipSync('<html>oops</html>')], 200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    expect(await failure(relayedAnswer('message/send', page, never))).toEqual({
      code: -32006,
      message: 'The upstream agent returned a response that is not JSON-RPC',
    });
  });

  it('a coding the gateway cannot undo: relayed as it came to message/send, -32006 where a stream was asked for', async () => {
    const odd = { 'content-type': 'application/json', 'content-encoding': 'zstd' };
    const sent = await relayedAnswer('message/send', answerOf(['\x28\xb5\x2f\xfd'], 200, odd), never);
    expect(sent.headers.get('content-encoding')).toBe('zstd');
    expect(Buffer.from(await sent.arrayBuffer())).toEqual(Buffer.from('\x28\xb5\x2f\xfd'));
    expect(await failure(relayedAnswer('message/stream', answerOf(['\x28\xb5\x2f\xfd'], 200, odd), never))).toEqual({
      code: -32006,
      message: 'The upstream agent answered with an unsupported content-encoding',
    });
  });

  it('a BOM split across chunks is not taken for a page', async () => {
    const chunks = [Uint8Array.from([0xef]), Uint8Array.from([0xbb, 0xbf]), ENVELOPE];
    expect(await oneFrame(await relayedAnswer('tasks/resubscribe', answerOf(chunks, 200, { 'content-type': 'application/json' }), never))).toEqual(
      JSON.parse(ENVELOPE),
    );
  });

  it('a body that breaks while it is read is the agent being unavailable, not its words', async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error(`socket hang up at internal-host-7`));
        sent = true;
        controller.enqueue(Buffer.from('{"jsonrpc":'));
      },
    });
    const answer = new Response(body, { status: 502, headers: { 'content-type': 'application/json' } });
    expect(await failure(relayedAnswer('message/send', answer, never))).toEqual({ code: -32603, message: 'Upstream agent is unavailable' });
  });
});
