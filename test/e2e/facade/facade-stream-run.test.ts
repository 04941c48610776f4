/**
 * A facade stream (0.2.5 message/stream, and message/send reading a streamed turn) is one run of layers from the
 * upstream's SSE reader to the frames the caller reads (core/stepped-stages.ts): the reply reducer, the turn's recovery,
 * its direct-answer record and its first error's words add no promise per event to what the 1.0 lane makes for the
 * same stream. Counted over the whole gateway in this process, the agent a plain node:http server and the caller a
 * node:http client (neither makes a promise per event): the promises per event are the slope between a short and a
 * long stream, so what a call costs once (its turn, its log line) cancels out.
 */
import { createHook } from 'node:async_hooks';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFacadeGateway } from '../../support/facade.js';

let agent: Server;
let gateway: RunningGateway;
let sequence = 0;

/** Answers SendStreamingMessage with its task, `chunks` working chunks (the message's text says how many), and input-required. */
function startAgent(): Promise<string> {
  let card = '';
  agent = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(card);
      return;
    }
    let body = '';
    req.on('data', (data: Buffer) => (body += data.toString()));
    req.on('end', () => {
      const { id, params } = JSON.parse(body) as { id: string; params: { message: { parts: Array<{ text?: string }> } } };
      const chunks = Number(/chunks:(\d+)/.exec(params.message.parts[0]?.text ?? '')?.[1] ?? 1);
      const n = ++sequence;
      const ids = { taskId: `t${n}`, contextId: `c${n}` };
      const frame = (result: unknown): string => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
      const working = (at: number) => ({
        statusUpdate: {
          ...ids,
          status: { state: 'TASK_STATE_WORKING', message: { messageId: `m${n}`, role: 'ROLE_AGENT', parts: [{ text: `${at} ` }] } },
        },
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        frame({ task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_SUBMITTED' } } }) +
          Array.from({ length: chunks }, (_, at) => frame(working(at))).join('') +
          frame({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } }),
      );
    });
  });
  return new Promise((resolve) =>
    agent.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
      card = JSON.stringify({
        name: 'stream run agent',
        description: 'Streams as many chunks as it is asked for.',
        supportedInterfaces: [{ url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        version: '1.0.0',
        capabilities: { streaming: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 'count', name: 'Count', description: 'Counts.', tags: ['test'] }],
      });
      resolve(url);
    }),
  );
}

beforeAll(async () => {
  gateway = await startFacadeGateway({ upstream: { url: await startAgent() } });
});

afterAll(async () => {
  await gateway?.close();
  agent?.closeAllConnections();
  await new Promise((resolve) => agent?.close(resolve));
});

type Lane = 'v1 stream' | 'facade stream' | 'facade send';

function body(lane: Lane, chunks: number): string {
  const text = `chunks:${chunks}`;
  if (lane === 'v1 stream') {
    const message = { messageId: `u${++sequence}`, role: 'ROLE_USER', parts: [{ text }] };
    return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message } });
  }
  const message = { kind: 'message', role: 'user', messageId: `u${++sequence}`, parts: [{ kind: 'text', text }] };
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: lane === 'facade send' ? 'message/send' : 'message/stream', params: { message } });
}

/** One call read whole over node:http (events, no promises); the answer's text. */
function call(lane: Lane, chunks: number): Promise<string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: lane === 'facade send' ? 'application/json' : 'text/event-stream',
  };
  if (lane === 'v1 stream') headers['a2a-version'] = '1.0';
  return new Promise((resolve, reject) => {
    const req = request(`${gateway.url}/`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (data: string) => (text += data));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body(lane, chunks));
  });
}

/** Promises the gateway (and the agent) make for one call of `chunks` chunks. */
async function promisesOf(lane: Lane, chunks: number): Promise<number> {
  let promises = 0;
  const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
  let text: string;
  try {
    text = await call(lane, chunks);
  } finally {
    hook.disable();
  }
  // The whole reply came: its last chunk is in it.
  expect(text).toContain(`${chunks - 1} `);
  return promises;
}

/** Promises per event: the slope between a short stream and a long one, after a warm-up. */
async function promisesPerEvent(lane: Lane): Promise<number> {
  await promisesOf(lane, 300);
  const short = await promisesOf(lane, 100);
  const long = await promisesOf(lane, 500);
  return (long - short) / 400;
}

describe('a facade stream from the upstream reader to its frames', () => {
  it('is one run: message/stream makes no more promises per event than a 1.0 stream of the same events', async () => {
    const v1 = await promisesPerEvent('v1 stream');
    const facade = await promisesPerEvent('facade stream');
    // With one of its layers an async generator again (the reply reducer, its frames, the turn's recovery, ...), the
    // facade makes some five more per event; all of them were 24 more.
    expect(facade - v1).toBeLessThan(1);
  });

  it('so is message/send: the turn it folds into one answer is read in one run too', async () => {
    const v1 = await promisesPerEvent('v1 stream');
    const send = await promisesPerEvent('facade send');
    // It writes no frame per event, so it makes two fewer than a 1.0 stream; with a generator back, some three more.
    expect(send - v1).toBeLessThan(-1);
  });
});
