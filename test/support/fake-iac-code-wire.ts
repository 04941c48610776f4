/**
 * How the fake iac-code (fake-iac-code.ts) writes its answers: whole JSON bodies and SSE streams of a
 * turn's events, with the wire faults of fake-iac-code-faults.ts applied to them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import type { Json } from './fake-iac-code-data.js';
import { LEAKY_MESSAGE, type Fault } from './fake-iac-code-faults.js';
import type { EventQueue } from './fake-iac-code-rpc.js';
import type { ReceivedRequest } from './fake-iac-code.js';

export const envelope = (id: unknown, member: Json): string => JSON.stringify({ ...member, id, jsonrpc: '2.0' });

/** The writers of one fake server; `killed` holds the exchanges whose socket the fake destroyed itself. */
export function createAnswerWriter() {
  const killed = new WeakSet<ReceivedRequest>();

  async function write(res: ServerResponse, text: string, fault: Fault | undefined): Promise<void> {
    if (res.destroyed) return;
    if (fault?.name !== 'trickle') {
      await new Promise<void>((resolve) => res.write(text, () => resolve()));
      return;
    }
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length && !res.destroyed; i++) {
      res.write(bytes.subarray(i, i + 1));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** A whole JSON body (unary answers and pre-stream errors), with the unary faults applied. */
  async function sendJson(res: ServerResponse, record: ReceivedRequest, body: string, fault: Fault | undefined): Promise<void> {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    if (fault?.name === 'hang-mid-stream' || fault?.name === 'kill-mid-stream') {
      res.write(body.slice(0, Math.floor(body.length / 2)));
      if (fault.name === 'kill-mid-stream') return killConnection(res, record);
      await record.closed;
      return;
    }
    await write(res, body, fault);
    res.end();
  }

  /** Destroy the socket, a moment after the frames already written, so the client can read them first. */
  async function killConnection(res: ServerResponse, record: ReceivedRequest): Promise<void> {
    killed.add(record);
    await sleep(30);
    res.socket?.destroy();
  }

  /** Stream one subscriber's events as SSE frames, with the stream faults applied. */
  async function pumpSse(res: ServerResponse, record: ReceivedRequest, queue: EventQueue, rpcId: unknown, fault: Fault | undefined): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    const id = fault?.name === 'wrong-id' ? 'wrong-id' : rpcId;
    const after = fault?.after ?? 3;
    let written = 0;
    let pendingSeparator = '';
    // A break with a `gap` strikes as soon as `after` frames are out: the turn waits for a resubscription then,
    // and sends nothing more on this stream.
    const breaksAtOnce = fault?.gap !== undefined;
    for (;;) {
      if (breaksAtOnce && written === after) {
        if (fault.name === 'kill-mid-stream') return killConnection(res, record);
        if (fault.name === 'end-mid-stream') return void res.end();
      }
      const event = await queue.next();
      if (!event) break;
      if (res.destroyed) return;
      if (fault && written === after) {
        if (fault.name === 'kill-mid-stream') return killConnection(res, record);
        if (fault.name === 'hang-mid-stream') return void (await record.closed);
        if (fault.name === 'end-mid-stream') return void res.end();
        if (fault.name === 'quiet') await sleep(fault.ms ?? 500);
        if (fault.name === 'error-event') {
          await write(
            res,
            `${pendingSeparator}event: error\r\ndata: ${envelope(id, { error: { code: -32603, message: LEAKY_MESSAGE } })}\r\n\r\n`,
            fault,
          );
          res.end();
          return;
        }
      }
      const ping = fault?.name === 'ping' ? `: ping - ${new Date().toISOString().replace('T', ' ').replace('Z', '+00:00')}\r\n\r\n` : '';
      const data = fault?.name === 'non-json' && written === 0 ? 'not json {' : envelope(id, { result: event });
      // Without a trailing blank line, each frame's separator is only written in front of the next frame.
      const separator = fault?.name === 'no-trailing-blank-line' ? '' : '\r\n\r\n';
      await write(res, `${pendingSeparator}${ping}data: ${data}${separator}`, fault);
      pendingSeparator = fault?.name === 'no-trailing-blank-line' ? '\r\n\r\n' : '';
      written++;
    }
    res.end();
  }

  return { killed, write, sendJson, pumpSse };
}
