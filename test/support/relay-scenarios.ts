/**
 * A 0.2.5 agent behind the facade's relay whose answers are chosen by the message's text (message
 * methods) or the task id (task methods): what a real agent's side sends outside 0.2.5 (a proxy's HTML
 * 502, an empty 500, a text/plain 404, JSON that is not JSON-RPC, a JSON body where a stream was asked
 * for, an untyped stream that never ends, a rate-limited refusal) and what is 0.2.5 in an odd layout.
 * The pass-through answer tests share it (test/e2e/facade/passthrough-answers*.test.ts).
 */
import type { ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { expectNoLeak } from './facade.js';
import { frame, json, raw, rpcResult, sse, startFakeV025, type FakeCall, type FakeV025 } from './fake-v025.js';

/** A name only the agent's side knows: it must never reach the caller. */
const MARKER = 'internal-host-7';
const HTML_502 =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>' +
  `<p>nginx: upstream ${MARKER}:8080 refused the connection</p></body></html>`;
const HTML_503 = `<html><body>503 Service Unavailable (${MARKER})</body></html>`;

export const MESSAGE = { kind: 'message', role: 'agent', messageId: 'agent-msg-1', parts: [{ kind: 'text', text: 'hello from the agent' }] };
export const BIG_MESSAGE = { kind: 'message', role: 'agent', messageId: 'agent-msg-big', parts: [{ kind: 'text', text: 'x'.repeat(150 * 1024) }] };
/** A well-formed envelope in the agent's own layout: keys in another order, spaces, a final newline. */
export const oddBytes = (id: unknown): string => `{ "id": ${JSON.stringify(id)},\n  "jsonrpc": "2.0",\n  "result": ${JSON.stringify(MESSAGE)} }\n`;
/** An envelope whose `jsonrpc` key is written with an escape: valid JSON-RPC, no literal `"jsonrpc"` in its bytes. */
export const escapedKey = (id: unknown): string => `{"\\u006asonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(MESSAGE)}}`;
export const bigBytes = (id: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, result: BIG_MESSAGE });
const relayedTask = (call: FakeCall) => ({
  kind: 'task',
  id: `relayed-${String(call.id)}`,
  contextId: 'ctx-relayed',
  status: { state: 'completed' },
});

const AGENT_FAILED = -32006;
export const answeredHttp = (status: number) => ({ code: AGENT_FAILED, message: `The upstream agent answered HTTP ${status}` });
export const NOT_JSON_RPC = { code: AGENT_FAILED, message: 'The upstream agent returned a response that is not JSON-RPC' };
export const TOO_LARGE = {
  code: AGENT_FAILED,
  message: 'The upstream agent returned a response that is not a stream and too large to relay as one event',
};

/** How the official client reports an error frame. */
export const streamError = (error: { code: number; message: string }): string =>
  `SSE event contained an error: ${error.message} (Code: ${error.code})`;

/** Lets the 'flow' scenario's held stream end (set while one is held). */
let endFlow: () => void = () => undefined;

export const releaseFlow = (): void => endFlow();

/** A 2xx JSON body written 40 KiB at a time, so that the gateway has read past 64 KiB before the rest arrives. */
async function inParts(res: ServerResponse, text: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  for (let at = 0; at < text.length; at += 40 * 1024) {
    res.write(text.slice(at, at + 40 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  res.end();
}

/** The agent's answer, chosen by the message's text (message methods) or the task id (task methods). */
function answer(scenario: string, call: FakeCall, res: ServerResponse, streamed: boolean): void | Promise<void> {
  switch (scenario) {
    case 'html-502':
      return raw(res, 502, 'text/html; charset=utf-8', HTML_502);
    case 'html-503':
      return raw(res, 503, 'text/html', HTML_503);
    case 'empty-500':
      return raw(res, 500, undefined, '');
    case 'plain-404':
      return raw(res, 404, 'text/plain', `Not Found: /rpc on ${MARKER}`);
    case 'not-json-rpc':
      return json(res, 200, { detail: `no route on ${MARKER}` });
    case 'not-json-rpc-500':
      return json(res, 500, { timestamp: '2026-12-03T14:00:00Z', status: 500, error: 'Internal Server Error', path: '/rpc', host: MARKER });
    case 'busy-429':
      // A refusal for now, as a rate-limited agent gives it: its Retry-After and extensions must reach the caller.
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7', 'x-a2a-extensions': 'https://example.com/ext/quota/v1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'Too many turns; try again in 7 s' } }));
      return;
    case 'envelope-500':
      return json(res, 500, { jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'General processing error.' } });
    case 'big':
      return inParts(res, bigBytes(call.id));
    case 'odd-bytes':
      return raw(res, 200, 'application/json', oddBytes(call.id));
    case 'escaped-key':
      return raw(res, 200, 'application/json', escapedKey(call.id));
    case 'untyped-stream':
      // A stream under no Content-Type, held open: never read to its end.
      res.writeHead(200);
      res.write(frame(call, relayedTask(call)));
      return;
    case 'result':
      return rpcResult(call, res, MESSAGE);
    case 'task-result':
      return rpcResult(call, res, relayedTask(call));
    case 'flow':
      sse(res, [frame(call, relayedTask(call))], { keepOpen: true });
      return new Promise<void>((resolve) => {
        endFlow = () => {
          res.end(
            frame(call, {
              kind: 'status-update',
              taskId: relayedTask(call).id,
              contextId: 'ctx-relayed',
              status: { state: 'completed' },
              final: true,
            }),
          );
          resolve();
        };
      });
    default:
      return streamed ? sse(res, [frame(call, relayedTask(call))]) : rpcResult(call, res, MESSAGE);
  }
}

const textOf = (call: FakeCall): string => (call.params as any)?.message?.parts?.[0]?.text ?? '';
const taskIdOf = (call: FakeCall): string => (call.params as any)?.id ?? '';

/** The agent, its answers chosen as above; `tasks/get` of a `relayed-<id>` task finds that task. */
export function startRelayScenarioAgent(): Promise<FakeV025> {
  return startFakeV025({
    rpc: {
      'message/send': (call, res) => answer(textOf(call), call, res, false),
      'message/stream': (call, res) => answer(textOf(call), call, res, true),
      'tasks/get': (call, res) =>
        taskIdOf(call).startsWith('relayed-')
          ? rpcResult(call, res, relayedTask({ ...call, id: taskIdOf(call).slice(8) }))
          : answer(taskIdOf(call), call, res, false),
      'tasks/resubscribe': (call, res) => answer(taskIdOf(call), call, res, true),
    },
  });
}

/** Nothing of the agent's body, no stack, path or secret in what the caller got. */
export function expectClean(text: string): void {
  expect(text).not.toContain(MARKER);
  expect(text).not.toContain('<html');
  expectNoLeak(text);
}
