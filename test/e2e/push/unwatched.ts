/**
 * What the tests of turns nobody watches to their end share: a JSON-RPC caller of the real gateway
 * that streams a turn and leaves after its first event, and reading what a webhook was pushed.
 */
import type { Received } from './harness.js';

export const API_HEADERS = { 'content-type': 'application/json', 'A2A-Version': '1.0' };

export async function rpc(baseUrl: string, method: string, params: unknown): Promise<{ result?: any; error?: any }> {
  const response = await fetch(`${baseUrl}/`, {
    method: 'POST',
    headers: API_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: any };
}

/**
 * Starts SendStreamingMessage and reads it until the first event names the task; `leave` then drops
 * the connection (the caller walked away), else the stream stays open (the gateway may cut it) and
 * `done` settles when it ends.
 */
export async function streamUntilTask(baseUrl: string, params: unknown, leave = true): Promise<{ taskId: string; done: Promise<string> }> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/`, {
    method: 'POST',
    headers: { ...API_HEADERS, accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let taskId: string | undefined;
  while (!taskId) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before it named its task: ${text}`);
    text += decoder.decode(value, { stream: true });
    taskId = /"(?:taskId|id)":"([0-9a-f-]{36})"/.exec(text)?.[1];
  }
  if (leave) {
    controller.abort();
    return { taskId, done: Promise.resolve(text) };
  }
  const done = (async () => {
    for (;;) {
      const { value, done: ended } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (ended) return text;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { taskId, done };
}

/** The task states a webhook was pushed, in order (a statusUpdate's or a Task's). */
export function pushedStates(received: Received[]): string[] {
  return received.map((entry) => {
    const body = entry.json as { statusUpdate?: { status: { state: string } }; task?: { status: { state: string } } };
    return (body.statusUpdate ?? body.task)?.status.state ?? 'artifact';
  });
}

/** The words of the last status pushed: what the webhook's reader is told the agent said at the end. */
export function finalWords(received: Received[]): string {
  const body = received.at(-1)?.json as { statusUpdate?: { status: any }; task?: { status: any } } | undefined;
  const status = (body?.statusUpdate ?? body?.task)?.status;
  return (status?.message?.parts ?? []).map((part: { text?: string }) => part.text ?? '').join('');
}
