/**
 * Graceful shutdown of the real CLI (`a2a-bridge serve`) on SIGTERM: new connections are refused at once,
 * a short request in flight completes, and what is still open when `drain-timeout-ms` runs out ends in its
 * caller's protocol:
 *   1.0 JSON-RPC stream   an `event: error` frame carrying a JSON-RPC error (-32603 naming the task that goes
 *                         on at the agent: its first event named it), the same frame as any mid-stream failure
 *                         (chosen over a TASK_STATE_FAILED status-update: the task itself did not fail, the
 *                         transport ended)
 *   1.0 REST stream       an `event: error` frame carrying google.rpc.Status (500 INTERNAL, the same words)
 *   0.2.5 stream          a `status-update` with state `failed`, `final: true`, the reply saying the task goes on
 *   blocking calls        a JSON-RPC error with that message, in the caller's version
 * then the process exits 0.
 * The first test's upstream is an agent of its own whose turns last until the test ends them
 * (held-turns-agent.ts): the open turns outlast any drain, and the short one ends when the test says, after
 * the signal, so neither races the host's load. The second test needs no held turn: the embedded demo agent.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { Client } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { facadeWords } from '../../../src/surfaces/v025/reply/words.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { serveCli } from '../../support/run-cli.js';
import { drainFrames, exchange, openLiveStream, type Exchange, type LiveStream, type SseFrame } from './support.js';

/** Long enough for the short turn, ended after the signal, to reach its caller on a loaded host. */
const DRAIN_MS = 3_000;
/** The second test's drain: it must not be waited for. */
const IDLE_DRAIN_MS = 1_000;
/** New connections are refused as soon as the signal is handled. */
const REFUSED_WITHIN_MS = 1_000;
/** After the drain: the final frames, the exit. Generous for a loaded 2-core machine. */
const MARGIN_MS = 2_500;
const SHUTTING_DOWN = 'The gateway is shutting down';
/** A stream whose task is known goes on at the agent (surfaces/shared/cut-stream.ts): its caller follows it, not sends it again. */
const TASK_GOES_ON = /^This gateway is shutting down and ended the stream, but task [\w-]+ goes on at the agent: follow it with SubscribeToTask/;

interface RunningCli {
  child: ChildProcess;
  url: string;
  port: number;
  logs: Array<{ msg?: string }>;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

const children: ChildProcess[] = [];
const clients: Client[] = [];
const agents: HeldTurnsAgent[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(clients.splice(0).map((client) => client.destroy()));
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

/** `upstream`: the agent to bridge to; the embedded demo agent without it. */
async function startCli(drainMs: number, upstream?: string): Promise<RunningCli> {
  const env = {
    A2A_BRIDGE_DRAIN_TIMEOUT_MS: String(drainMs),
    A2A_BRIDGE_KEEPALIVE_MS: '200',
    ...(upstream === undefined ? {} : { A2A_BRIDGE_UPSTREAM__URL: upstream }),
  };
  const cli = await serveCli(['--port', '0'], { env, track: children });
  return { child: cli.child, url: cli.url, port: Number(new URL(cli.url).port), logs: cli.logs, exited: cli.exited };
}

const json = { 'content-type': 'application/json' };
const V1 = { ...json, 'a2a-version': '1.0' };
const rpc = (method: string, params: unknown, id: string): string => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const v1Message = (text: string) => ({ message: { messageId: `m-${text.length}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });
const v025Message = (text: string) => ({
  message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text }] },
});

/** Whether a fresh TCP connection to `port` is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** One connection to the gateway, opened (by a request for /health) before it is needed. */
async function warmConnection(url: string): Promise<{ post(headers: Record<string, string>, body: string): Promise<Exchange> }> {
  const client = new Client(url);
  clients.push(client);
  await (await client.request({ path: '/health', method: 'GET' })).body.text();
  return {
    async post(headers, body) {
      const started = Date.now();
      const answer = await client.request({ path: '/', method: 'POST', headers, body });
      const text = await answer.body.text();
      return {
        status: answer.statusCode,
        contentType: String(answer.headers['content-type']),
        text,
        json: JSON.parse(text) as unknown,
        ms: Date.now() - started,
      };
    },
  };
}

async function openWithFirstFrame(url: string, init: RequestInit): Promise<LiveStream> {
  const stream = await openLiveStream(url, init);
  expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(await stream.next()).toBeDefined();
  return stream;
}

/** The remaining frames and when the stream ended, measured from `since`. */
async function ending(stream: LiveStream, since: () => number): Promise<{ frames: SseFrame[]; afterSignalMs: number }> {
  const frames = await drainFrames(stream);
  return { frames, afterSignalMs: Date.now() - since() };
}

describe('SIGTERM: graceful shutdown of a2a-bridge serve', () => {
  it('refuses new connections, finishes the short request, ends open streams and calls in their protocol, exits 0', async () => {
    // Its streamed turns say something before they are held: the reason for the cut closes a reply begun.
    const agent = await startHeldTurnsAgent({ saying: 'Working on it.' });
    agents.push(agent);
    const cli = await startCli(DRAIN_MS, agent.url);
    const { url } = cli;
    // A kept-alive connection left idle: it must not hold the drain up.
    expect((await exchange(`${url}/health`)).status).toBe(200);

    const v1Stream = await openWithFirstFrame(`${url}/`, {
      method: 'POST',
      headers: V1,
      body: rpc('SendStreamingMessage', v1Message('a 1.0 stream open at shutdown'), 'v1-stream'),
    });
    const restStream = await openWithFirstFrame(`${url}/message:stream`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify(v1Message('a REST stream open at shutdown')),
    });
    const v025Stream = await openWithFirstFrame(`${url}/stream`, {
      method: 'POST',
      headers: json,
      body: rpc('message/stream', v025Message('a 0.2.5 stream open at shutdown'), 'v025-stream'),
    });
    // Blocking calls of a held turn: still running when the drain time is over.
    const v1Blocking = exchange(`${url}/`, { method: 'POST', headers: V1, body: rpc('SendMessage', v1Message('blocking 1.0'), 'v1-blocking') });
    const v025Blocking = exchange(`${url}/`, {
      method: 'POST',
      headers: json,
      body: rpc('message/send', v025Message('blocking 0.2.5'), 'v025-blocking'),
    });
    const openTurns = await agent.waitForHeld(5);
    // A short request, held at the agent until the signal has come, then ended: it finishes inside the drain
    // time however long the host took to get it there (a turn of the demo agent's own once outlasted the drain
    // on a loaded CI host).
    const warm = await warmConnection(url);
    let shortDone = false;
    const shortText = 'a short request';
    const short = warm.post(V1, rpc('SendMessage', v1Message(shortText), 'short')).finally(() => {
      shortDone = true;
    });
    const shortTurn = (await agent.waitForHeld(6)).find((turn) => turn.text === shortText)!;
    expect(shortDone, 'the short request is in flight when the signal arrives').toBe(false);

    let signalledAt = 0;
    const sinceSignal = () => signalledAt;
    const streamEnds = [v1Stream, restStream, v025Stream].map((stream) => ending(stream, sinceSignal));
    cli.child.kill('SIGTERM');
    signalledAt = Date.now();

    // New connections are refused as soon as the signal is handled.
    let isRefused = false;
    while (!isRefused && Date.now() - signalledAt < MARGIN_MS) {
      isRefused = await refused(cli.port);
      if (!isRefused) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(isRefused, 'a new connection is refused').toBe(true);
    expect(Date.now() - signalledAt).toBeLessThan(REFUSED_WITHIN_MS);

    shortTurn.complete();
    const shortAnswer = await short;
    expect(shortAnswer.status).toBe(200);
    const shortTask = (shortAnswer.json as { result?: { task?: { status: { state: string; message?: { parts: Array<{ text?: string }> } } } } })
      .result?.task;
    expect(shortTask?.status.state, shortAnswer.text.slice(0, 200)).toBe('TASK_STATE_COMPLETED');
    expect(shortTask?.status.message?.parts[0]?.text).toBe(`done: ${shortText}`);

    const [v1End, restEnd, v025End] = await Promise.all(streamEnds);
    for (const end of [v1End!, restEnd!, v025End!]) {
      // Allowed to run for the drain time, then ended promptly.
      expect(end.afterSignalMs).toBeGreaterThanOrEqual(DRAIN_MS - 100);
      expect(end.afterSignalMs).toBeLessThan(DRAIN_MS + MARGIN_MS);
    }

    const v1Last = v1End!.frames.at(-1)!;
    expect(v1Last.event).toBe('error');
    expect(JSON.parse(v1Last.data)).toMatchObject({
      jsonrpc: '2.0',
      id: 'v1-stream',
      error: { code: -32603, message: expect.stringMatching(TASK_GOES_ON) },
    });
    expect(v1End!.frames.slice(0, -1).every((frame) => frame.event === undefined)).toBe(true);

    const restLast = restEnd!.frames.at(-1)!;
    expect(restLast.event).toBe('error');
    expect(JSON.parse(restLast.data)).toMatchObject({ error: { code: 500, status: 'INTERNAL', message: expect.stringMatching(TASK_GOES_ON) } });

    const v025Frames = v025End!.frames.map((frame) => JSON.parse(frame.data) as { id: string; result: any });
    const v025Last = v025Frames.at(-1)!;
    expect(v025Last.id).toBe('v025-stream');
    expect(v025Last.result).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
    // Bailian reads artifacts only: the reason closes the reply, right before the final status.
    const v025Closing = v025Frames.at(-2)!.result;
    expect(v025Closing).toMatchObject({ kind: 'artifact-update', lastChunk: true });
    // The turn goes on at the agent: its user is told how to read its end, not to send it again (v025/recovery/cut-turns.ts).
    expect(v025Closing.artifact.parts[0].text).toBe(`\n${facadeWords('en').turnCutByShutdown}`);

    const v1BlockingAnswer = await v1Blocking;
    expect(v1BlockingAnswer.json).toEqual({ jsonrpc: '2.0', id: 'v1-blocking', error: { code: -32603, message: SHUTTING_DOWN } });
    // The facade's message/send reads the turn as a stream: the turn it accepted ends failed, with what was said and the reason.
    const v025BlockingAnswer = (await v025Blocking).json as { id: string; result: any };
    expect(v025BlockingAnswer.id).toBe('v025-blocking');
    expect(v025BlockingAnswer.result).toMatchObject({ kind: 'task', status: { state: 'failed' } });
    expect(v025BlockingAnswer.result.artifacts[0].parts[0].text.endsWith(`\n${facadeWords('en').turnCutByShutdown}`)).toBe(true);

    const [code, signal] = await cli.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(DRAIN_MS + MARGIN_MS + 1_000);
    expect(cli.logs.map((entry) => entry.msg)).toContain('drain time is over: ending the open requests and streams');
    // The open turns outlasted the drain: the gateway hung up on them, the agent never ended them.
    expect(await Promise.all(openTurns.map((turn) => turn.closed))).toEqual(openTurns.map(() => 'client-closed'));
  }, 40_000);

  it('with nothing open, the process exits 0 at once instead of waiting for the drain time', async () => {
    const cli = await startCli(IDLE_DRAIN_MS);
    expect((await exchange(`${cli.url}/health`)).status).toBe(200);
    const stream = await openWithFirstFrame(`${cli.url}/`, {
      method: 'POST',
      headers: V1,
      body: rpc('SendStreamingMessage', v1Message('a short turn'), 'done-before'),
    });
    await drainFrames(stream);
    cli.child.kill('SIGTERM');
    const signalledAt = Date.now();
    const [code] = await cli.exited;
    expect(code).toBe(0);
    // That it did not wait for the drain is the log's to tell (the drain timer says when it ran out); the time only
    // bounds the process's own teardown, which a loaded host stretched past the drain time (1,683 ms in a CI run).
    expect(cli.logs.map((entry) => entry.msg)).not.toContain('drain time is over: ending the open requests and streams');
    expect(Date.now() - signalledAt).toBeLessThan(IDLE_DRAIN_MS + MARGIN_MS);
  }, 40_000);
});
