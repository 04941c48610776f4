import { brotliCompressSync, constants, createGzip, deflateSync, gzipSync, type Gunzip } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';

// Every gunzip the pass-through makes, to see whether it was closed.
const gunzips = vi.hoisted(() => [] as Gunzip[]);
vi.mock('node:zlib', async (importOriginal) => {
  const zlib = await importOriginal<typeof import('node:zlib')>();
  const createGunzip = (): Gunzip => {
    const gunzip = zlib.createGunzip();
    gunzips.push(gunzip);
    return gunzip;
  };
  return { ...zlib, createGunzip, default: { ...zlib, createGunzip } };
});

import { recordingAnswer, relayedTaskOf, type RelayedTask } from '../../../../src/surfaces/v025/relay/passthrough-record.js';

const task = { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'input-required' } };
const envelope = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 7, result });

function recorder() {
  const recorded: RelayedTask[] = [];
  return { recorded, record: async (relayed: RelayedTask) => void recorded.push(relayed) };
}

describe('the pass-through records the task an answer names', () => {
  it('reads the task of a Task or an update event; a Message or anything else names none', () => {
    expect(relayedTaskOf(task)).toEqual({ id: 't-1', contextId: 'c-1', state: 'input-required' });
    expect(relayedTaskOf({ kind: 'status-update', taskId: 't-2', contextId: 'c-2', status: { state: 'working' }, final: false })).toEqual({
      id: 't-2',
      contextId: 'c-2',
      state: 'working',
    });
    expect(relayedTaskOf({ kind: 'message', messageId: 'm', role: 'agent', parts: [], taskId: 't-3', contextId: 'c-3' })).toBeUndefined();
    expect(relayedTaskOf({ kind: 'task', id: '', contextId: 'c' })).toBeUndefined();
    expect(relayedTaskOf('task')).toBeUndefined();
  });

  it('records a JSON answer and hands its bytes on as they came', async () => {
    const { recorded, record } = recorder();
    const body = `${envelope(task)}\n`;
    const answer = await recordingAnswer(new Response(body, { headers: { 'content-type': 'application/json' } }), record);
    expect(recorded).toEqual([{ id: 't-1', contextId: 'c-1', state: 'input-required' }]);
    expect(await answer.text()).toBe(body);
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('records a %s-encoded JSON answer from a decoded copy, and hands its bytes on as they came', async (coding, encode) => {
    const { recorded, record } = recorder();
    const encoded = encode(envelope(task));
    const headers = { 'content-type': 'application/json', 'content-encoding': coding };
    const answer = await recordingAnswer(new Response(encoded, { headers }), record);
    expect(Buffer.from(await answer.arrayBuffer()).equals(encoded)).toBe(true);
    expect(recorded).toEqual([{ id: 't-1', contextId: 'c-1', state: 'input-required' }]);
  });

  it.each([
    ['a coding it does not know', 'compress', Buffer.from(envelope(task))],
    ['two codings', 'gzip, br', gzipSync(envelope(task))],
    ['bytes that are not what they claim', 'gzip', Buffer.from('not gzip at all')],
  ])('hands on %s untouched, without a record', async (_name, coding, bytes) => {
    const { recorded, record } = recorder();
    const answer = await recordingAnswer(
      new Response(bytes, { headers: { 'content-type': 'application/json', 'content-encoding': coding } }),
      record,
    );
    expect(Buffer.from(await answer.arrayBuffer()).equals(bytes)).toBe(true);
    expect(recorded).toEqual([]);
  });

  it('records a gzipped SSE answer as soon as the chunk naming the task is decoded, and passes the bytes untouched', async () => {
    const { recorded, record } = recorder();
    const gzip = createGzip();
    const parts: Buffer[] = [];
    gzip.on('data', (data: Buffer) => parts.push(data));
    const flushed = async (text: string): Promise<Buffer> => {
      gzip.write(text);
      await new Promise<void>((resolve) => gzip.flush(constants.Z_SYNC_FLUSH, () => resolve()));
      return Buffer.concat(parts.splice(0));
    };
    const chunks = [
      await flushed(`data: ${envelope(task).slice(0, 20)}`),
      await flushed(`${envelope(task).slice(20)}\n\n`),
      await flushed(`data: ${envelope({ kind: 'status-update', taskId: 't-1', contextId: 'c-1', status: { state: 'completed' }, final: true })}\n\n`),
    ];
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk));
        controller.close();
      },
    });
    const headers = { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' };
    const answer = await recordingAnswer(new Response(source, { headers }), record);
    const reader = answer.body!.getReader();
    expect(Buffer.from((await reader.read()).value).equals(chunks[0]!)).toBe(true);
    expect(recorded).toEqual([]);
    expect(Buffer.from((await reader.read()).value).equals(chunks[1]!)).toBe(true);
    expect(recorded).toEqual([{ id: 't-1', contextId: 'c-1', state: 'input-required' }]);
    expect(Buffer.from((await reader.read()).value).equals(chunks[2]!)).toBe(true);
    expect((await reader.read()).done).toBe(true);
    expect(recorded).toHaveLength(1);
  });

  it('closes the decoder of a gzipped SSE answer when the caller leaves before the task was named', async () => {
    const { recorded, record } = recorder();
    const first = gzipSync(': opening\n\n');
    const source = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new Uint8Array(first)),
    });
    const headers = { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' };
    gunzips.length = 0;
    const answer = await recordingAnswer(new Response(source, { headers }), record);
    const reader = answer.body!.getReader();
    expect(Buffer.from((await reader.read()).value).equals(first)).toBe(true);
    expect(gunzips).toHaveLength(1);
    expect(gunzips[0]!.destroyed).toBe(false);
    await reader.cancel();
    expect(gunzips[0]!.destroyed).toBe(true);
    expect(recorded).toEqual([]);
  });

  it('records an SSE answer before the chunk naming the task goes on, and passes every chunk untouched', async () => {
    const { recorded, record } = recorder();
    const chunks = [
      `data: ${envelope(task).slice(0, 20)}`,
      `${envelope(task).slice(20)}\n\n`,
      `data: ${envelope({ kind: 'status-update', taskId: 't-1', contextId: 'c-1', status: { state: 'completed' }, final: true })}\n\n`,
    ];
    const encoder = new TextEncoder();
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    const answer = await recordingAnswer(new Response(source, { headers: { 'content-type': 'text/event-stream' } }), record);
    const reader = answer.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe(chunks[0]);
    expect(decoder.decode((await reader.read()).value)).toBe(chunks[1]);
    expect(recorded).toEqual([{ id: 't-1', contextId: 'c-1', state: 'input-required' }]);
    expect(decoder.decode((await reader.read()).value)).toBe(chunks[2]);
    expect((await reader.read()).done).toBe(true);
    expect(recorded).toHaveLength(1);
  });
});
