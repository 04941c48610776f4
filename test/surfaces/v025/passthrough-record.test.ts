import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { recordingAnswer, relayedTaskOf, type RelayedTask } from '../../../src/surfaces/v025/passthrough-record.js';

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

  it('hands an encoded answer on byte for byte, even though it cannot read it', async () => {
    const { recorded, record } = recorder();
    const gzipped = gzipSync(envelope(task));
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const answer = await recordingAnswer(new Response(gzipped, { headers }), record);
    expect(Buffer.from(await answer.arrayBuffer()).equals(gzipped)).toBe(true);
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
