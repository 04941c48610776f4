/**
 * A 1.0 stream always ends in a protocol answer, on JSON-RPC and HTTP+JSON alike:
 * - an upstream that accepts the stream and then stays quiet: the SSE headers and an opening comment
 *   arrive at once (long before the first keep-alive interval), and after
 *   `upstream.first-event-timeout-ms` an error event closes the stream and the upstream call is ended;
 * - an upstream that ends the stream without a terminal or interrupted state (nothing at all, or
 *   SUBMITTED and WORKING then the end): an InvalidAgentResponse (-32006) error event, after whatever was
 *   relayed; frames that are not JSON from the start: that error as the call's answer;
 * - gzip, br and deflate bodies are decoded (the gateway asks for identity; this agent ignores that).
 * Blocking calls of the same upstreams answer an error (or the decoded task) instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startFaultyAgent, type FaultyAgent } from '../../support/faulty-agent.js';
import { exchange, openLiveStream, type SseFrame } from './support.js';

/** Long, so that headers at once are told from headers held until this bound however busy the host (half of it). */
const FIRST_EVENT_TIMEOUT_MS = 4_000;
const INTERNAL_STATUSES = [500, 503, 504];
const HEADERS_TIMEOUT_MS = 800;
/** A blocking call's bound: its answer's headers come with the answer, so the headers bound is not its. */
const REQUEST_TIMEOUT_MS = 800;
const MARGIN_MS = 2_000;
const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };

const UPSTREAM = {
  'first-event-timeout-ms': FIRST_EVENT_TIMEOUT_MS,
  'headers-timeout-ms': HEADERS_TIMEOUT_MS,
  'request-timeout-ms': REQUEST_TIMEOUT_MS,
};

interface Pair {
  agent: FaultyAgent;
  gateway: TestGateway;
  close(): Promise<void>;
}

/** Every agent started, so the last check reads what all of them were asked. */
const agents: FaultyAgent[] = [];

async function startPair(): Promise<Pair> {
  const agent = await startFaultyAgent();
  agents.push(agent);
  const gateway = await startTestGateway({ upstream: { url: agent.url, ...UPSTREAM } });
  return {
    agent,
    gateway,
    close: async () => {
      await gateway.close();
      await agent.close();
    },
  };
}

/** The pair of every case but the quiet streams. */
let shared: Pair;
let gateway: TestGateway;

beforeAll(async () => {
  shared = await startPair();
  gateway = shared.gateway;
});
afterAll(async () => {
  await shared?.close();
});

const BINDINGS = ['JSON-RPC', 'HTTP+JSON'] as const;
type Binding = (typeof BINDINGS)[number];

const message = (text: string) => ({ message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] } });

function streamRequest(binding: Binding, text: string, to: TestGateway = gateway): { url: string; init: RequestInit } {
  if (binding === 'JSON-RPC') {
    return {
      url: `${to.url}/`,
      init: {
        method: 'POST',
        headers: V1,
        body: JSON.stringify({ jsonrpc: '2.0', id: 'st', method: 'SendStreamingMessage', params: message(text) }),
      },
    };
  }
  return { url: `${to.url}/message:stream`, init: { method: 'POST', headers: V1, body: JSON.stringify(message(text)) } };
}

function blockingRequest(binding: Binding, text: string): { url: string; init: RequestInit } {
  if (binding === 'JSON-RPC') {
    return {
      url: `${gateway.url}/`,
      init: { method: 'POST', headers: V1, body: JSON.stringify({ jsonrpc: '2.0', id: 'bl', method: 'SendMessage', params: message(text) }) },
    };
  }
  return { url: `${gateway.url}/message:send`, init: { method: 'POST', headers: V1, body: JSON.stringify(message(text)) } };
}

/** The error code an `event: error` frame carries, in either binding's form. */
function errorCodeOf(binding: Binding, frame: SseFrame): number {
  expect(frame.event).toBe('error');
  const body = JSON.parse(frame.data);
  if (binding === 'JSON-RPC') {
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'st' });
    return body.error.code;
  }
  // HTTP+JSON: google.rpc.Status; the A2A code is named by the ErrorInfo reason (-32603 has none, and is
  // 500, or 503 / 504 for a failure of the hop: hop-failures.test.ts).
  expect(INTERNAL_STATUSES).toContain(body.error.code);
  const reason = body.error.details.find((detail: any) => detail['@type']?.endsWith('ErrorInfo'))?.reason;
  return reason === 'INVALID_AGENT_RESPONSE' ? -32006 : -32603;
}

const facadeStream = (text: string, to: TestGateway = gateway): { url: string; init: RequestInit } => ({
  url: `${to.url}/stream`,
  init: {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'fs',
      method: 'message/stream',
      params: {
        message: { kind: 'message', messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'user', parts: [{ kind: 'text', text }] },
      },
    }),
  },
});

const states = (binding: Binding, frames: SseFrame[]): string[] =>
  frames
    .filter((frame) => frame.event === undefined)
    .map((frame) => {
      const event = binding === 'JSON-RPC' ? JSON.parse(frame.data).result : JSON.parse(frame.data);
      return event.task?.status.state ?? event.statusUpdate?.status.state;
    });

/** A blocking call's answer: the error code (in JSON-RPC terms) or the task's state, and how long it took. */
async function sendBlocking(binding: Binding, text: string): Promise<{ code?: number; state?: string; ms: number }> {
  const { url, init } = blockingRequest(binding, text);
  const answer = await exchange(url, init);
  const body = answer.json as any;
  if (binding === 'JSON-RPC') {
    expect(answer.status).toBe(200);
    return { code: body.error?.code, state: body.result?.task?.status.state, ms: answer.ms };
  }
  if (answer.status === 200) return { state: body.task?.status.state, ms: answer.ms };
  const reason = body.error.details.find((detail: any) => detail['@type']?.endsWith('ErrorInfo'))?.reason;
  return {
    code: reason === 'INVALID_AGENT_RESPONSE' ? -32006 : INTERNAL_STATUSES.includes(body.error.code) ? -32603 : body.error.code,
    ms: answer.ms,
  };
}

async function readStream(binding: Binding, text: string): Promise<SseFrame[]> {
  const { url, init } = streamRequest(binding, text);
  const answer = await exchange(url, init);
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^text\/event-stream/);
  return answer.frames!;
}

// The cases that wait out a bound (seconds) run side by side: each quiet stream on a pair of its own, the quiet
// blocking calls on the shared pair. The others stay one at a time, after them: whether an answer opens with its
// first event or its error (rather than the opening comment) depends on the agent's answer following its
// acceptance within the accept grace (150 ms, stream-start.ts), which a busy event loop can miss.
describe.concurrent('quiet upstreams, side by side', () => {
  // A pair per quiet stream, so that its check that the upstream call was ended (no response left open at the
  // agent) reads that one call; all started before any case's clock does.
  const pairs = new Map<Binding | '0.2.5', Pair>();
  beforeAll(async () => {
    for (const name of [...BINDINGS, '0.2.5'] as const) pairs.set(name, await startPair());
  });
  afterAll(async () => {
    for (const pair of pairs.values()) await pair.close();
  });

  it.for(BINDINGS)(
    '1.0 %s stream, quiet after accepting: headers and a comment at once, then an error event at the first-event bound',
    async (binding) => {
      const { agent, gateway } = pairs.get(binding)!;
      const { url, init } = streamRequest(binding, 'mode:quiet', gateway);
      const started = Date.now();
      const stream = await openLiveStream(url, init);
      expect(Date.now() - started).toBeLessThan(FIRST_EVENT_TIMEOUT_MS / 2);
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await until(() => stream.comments.length > 0, FIRST_EVENT_TIMEOUT_MS / 2);
      const frame = await stream.next();
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(FIRST_EVENT_TIMEOUT_MS - 100);
      expect(elapsed).toBeLessThan(FIRST_EVENT_TIMEOUT_MS + MARGIN_MS);
      expect(errorCodeOf(binding, frame!)).toBe(-32603);
      expect(await stream.next()).toBeUndefined();
      await stream.ended;
      // The upstream call was ended with it.
      await until(() => agent.openResponses() === 0, 2_000);
    },
  );

  it('0.2.5 facade stream (message/stream), quiet after accepting: headers and a comment at once, then a 0.2.5 error at the first-event bound', async () => {
    const { agent, gateway } = pairs.get('0.2.5')!;
    const { url, init } = facadeStream('mode:quiet', gateway);
    const started = Date.now();
    const stream = await openLiveStream(url, init);
    expect(Date.now() - started).toBeLessThan(FIRST_EVENT_TIMEOUT_MS / 2);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await until(() => stream.comments.length > 0, FIRST_EVENT_TIMEOUT_MS / 2);
    const frame = await stream.next();
    expect(Date.now() - started).toBeGreaterThanOrEqual(FIRST_EVENT_TIMEOUT_MS - 100);
    expect(JSON.parse(frame!.data)).toMatchObject({ jsonrpc: '2.0', id: 'fs', error: { code: -32603 } });
    expect(await stream.next()).toBeUndefined();
    // A new task that said nothing may be at work with no id to note: the facade reads on for its first event as long
    // again as the longer bound (unwatched-turns.ts turnBound), then ends the upstream call.
    await until(() => agent.openResponses() === 0, FIRST_EVENT_TIMEOUT_MS + MARGIN_MS);
  });

  it.for(BINDINGS)('1.0 %s blocking call, quiet: an error at the whole-call bound (request-timeout-ms)', async (binding) => {
    const answer = await sendBlocking(binding, 'mode:quiet');
    expect(answer.code).toBe(-32603);
    expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS + MARGIN_MS);
  });
});

describe.each(BINDINGS)('1.0 %s streams', (binding) => {
  it('empty (headers, a comment, the end): an InvalidAgentResponse error event', async () => {
    const frames = await readStream(binding, 'mode:empty');
    expect(frames).toHaveLength(1);
    expect(errorCodeOf(binding, frames[0]!)).toBe(-32006);
  });

  it('truncated (SUBMITTED, WORKING, the end): the two events, then an InvalidAgentResponse error event', async () => {
    const frames = await readStream(binding, 'mode:truncated');
    expect(states(binding, frames)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']);
    expect(errorCodeOf(binding, frames.at(-1)!)).toBe(-32006);
  });

  // Nothing was relayed when the first frame failed (within the accept grace: stream-start.ts), so the
  // failure is the call's answer, as any error before the first event.
  it('undecodable frames from the start: an InvalidAgentResponse error answer, not a stream', async () => {
    const { url, init } = streamRequest(binding, 'mode:garbage');
    const answer = await exchange(url, init);
    expect(answer.contentType).toMatch(/^application\/json/);
    const body = answer.json as any;
    if (binding === 'JSON-RPC') {
      expect(answer.status).toBe(200);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 'st', error: { code: -32006 } });
    } else {
      expect(answer.status).toBe(500);
      expect(body.error.details.find((detail: any) => detail['@type']?.endsWith('ErrorInfo'))?.reason).toBe('INVALID_AGENT_RESPONSE');
    }
  });

  it('an agent that answers at once: the stream opens with its first event (no opening comment), logged with its task', async () => {
    const { url, init } = streamRequest(binding, 'mode:complete');
    const stream = await openLiveStream(url, init);
    const frames = [];
    for (let frame = await stream.next(); frame; frame = await stream.next()) frames.push(frame);
    expect(stream.comments).toEqual([]);
    expect(states(binding, frames)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const line = gateway.requestLog().findLast((entry) => entry.stream);
    expect(line?.taskId).toMatch(/^task-\d+$/);
  });

  it.each(['gzip', 'br', 'deflate'])('a %s-encoded stream is decoded into the whole turn', async (encoding) => {
    const frames = await readStream(binding, `mode:${encoding}`);
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
    expect(states(binding, frames)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });
});

describe.each(BINDINGS)('1.0 %s blocking calls', (binding) => {
  it.each(['empty', 'truncated', 'garbage'])('%s: InvalidAgentResponse', async (mode) => {
    expect((await sendBlocking(binding, `mode:${mode}`)).code).toBe(-32006);
  });

  it.each(['gzip', 'br', 'deflate'])('a %s-encoded answer is decoded', async (encoding) => {
    expect((await sendBlocking(binding, `mode:${encoding}`)).state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('0.2.5 facade streams (message/stream)', () => {
  it('truncated: what was said, then a failed, final status (Bailian waits for final: true)', async () => {
    const answer = await exchange(facadeStream('mode:truncated').url, facadeStream('mode:truncated').init);
    const last = JSON.parse(answer.frames!.at(-1)!.data);
    expect(last.result).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
  });
});

it('the gateway asks upstreams for identity encoding', () => {
  const encodings = agents.flatMap((each) => each.acceptEncodings);
  expect(encodings.length).toBeGreaterThan(0);
  expect(new Set(encodings)).toEqual(new Set(['identity']));
});

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
